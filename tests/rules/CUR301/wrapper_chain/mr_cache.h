/* The memory-region cache: every registration of the transport goes through it. */
#ifndef MR_CACHE_H
#define MR_CACHE_H

#include <stddef.h>
#include <infiniband/verbs.h>

struct ibv_mr *mr_cache_register(struct ibv_pd *pd, void *addr, size_t len);

#endif
