/* A registration cache whose verbs calls are timed through trace.h. */
#include <stdlib.h>
#include <infiniband/verbs.h>
#include "trace.h"

#define PAGE_BYTES 4096
#define SLOT_BYTES 24

struct mr_cache {
    struct ibv_pd *pd;
    void *pool;
    char *slot;
};

/* passes its parameters through the macro to ibv_reg_mr: a wrapper, its callers checked */
struct ibv_mr *mr_cache_register(struct mr_cache *cache, void *addr, size_t length)
{
    struct ibv_mr *mr;

    do {
        mr = TRACE_CALL(ibv_reg_mr, cache->pd, addr, length, IBV_ACCESS_LOCAL_WRITE);
    } while (mr == NULL && rand() % 2);
    return mr;
}

int mr_cache_open(struct mr_cache *cache)
{
    if (posix_memalign(&cache->pool, PAGE_BYTES, 16 * PAGE_BYTES) != 0)
        return -1;
    cache->slot = malloc(SLOT_BYTES);
    TRACE_ANNOUNCE(ibv_reg_mr, 1, 2); // ok: CUR301
    /* the pool owns its whole pages */
    if (TRACE_CALL(ibv_reg_mr, cache->pd, cache->pool, 16 * PAGE_BYTES, // ok: CUR301
                   IBV_ACCESS_LOCAL_WRITE) == NULL)
        return -1;
    return TRACE_CALL(ibv_reg_mr, cache->pd, cache->slot, SLOT_BYTES, // warning: CUR301@59 "ibv_reg_mr() registers 24 bytes, not whole 4096-byte pages"
                      IBV_ACCESS_LOCAL_WRITE) ? 0 : -1;
}
