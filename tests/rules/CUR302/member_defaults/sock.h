/* A socket layer over librdmacm. Its options struct is public: any file may set them. */
#ifndef SOCK_H
#define SOCK_H

#include <stdint.h>
#include <rdma/rdma_cma.h>

struct sock_opts {
    uint32_t ctrl_bytes;
};

struct sock;

struct sock *sock_create(struct rdma_cm_id *id, struct sock_opts *opts);
void sock_set_rcvbuf(struct sock *s, uint32_t bytes);
void sock_opts_init(struct sock_opts *opts, uint32_t ctrl_bytes);

#endif
