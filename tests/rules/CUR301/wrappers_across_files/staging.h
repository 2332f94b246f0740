/* Staging areas: buffers the progress thread copies through. */
#ifndef STAGING_H
#define STAGING_H

#include <stddef.h>
#include <infiniband/verbs.h>

struct staging {
    struct ibv_pd *pd;
    unsigned long pinned_bytes;
};

struct ibv_mr *staging_register(struct staging *st, void *buf, size_t bytes);
struct ibv_mr *staging_register_header(struct staging *st, void *header, size_t bytes);
int staging_account(struct staging *st, void *buf, size_t bytes);

#endif
