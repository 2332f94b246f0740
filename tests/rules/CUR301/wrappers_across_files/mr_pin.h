/* The one place the transport pins memory with the HCA. */
#ifndef MR_PIN_H
#define MR_PIN_H

#include <stddef.h>
#include <infiniband/verbs.h>

struct ibv_mr *mr_pin(struct ibv_pd *pd, void *addr, size_t len);

#endif
