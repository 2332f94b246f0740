/* Pools whose registered slabs are never part of a page: entries of whole pages, entries of
   the device's frame size (known at run time), and small entries in a pool that registers
   nothing. */
#include <infiniband/verbs.h>
#include "slab_pool.h"

struct endpoint {
    struct ibv_pd *pd;
    size_t mtu;
    struct slab_pool *pages, *frames, *requests;
};

static int endpoint_reg(void *owner, void *data, size_t len, void **handle)
{
    struct endpoint *ep = owner;

    *handle = ibv_reg_mr(ep->pd, data, len, IBV_ACCESS_LOCAL_WRITE);
    return *handle ? 0 : -1;
}

int endpoint_open(struct endpoint *ep)
{
    if (slab_pool_create_reg(4096, 16, 16, 0, endpoint_reg, ep, &ep->pages) != 0)
        return -1;
    if (slab_pool_create_reg(ep->mtu + 64, 8, 8, 0, endpoint_reg, ep, &ep->frames) != 0)
        return -1;
    return slab_pool_create(sizeof(struct ack_msg), 4, 4, 0, &ep->requests);
}
