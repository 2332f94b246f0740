/* The endpoint registers the pools' slabs with its protection domain. */
#include <infiniband/verbs.h>
#include "slab_pool.h"

struct endpoint {
    struct ibv_pd *pd;
    struct slab_pool *acks;
};

static int endpoint_reg(void *owner, void *data, size_t len, void **handle)
{
    struct endpoint *ep = owner;

    *handle = ibv_reg_mr(ep->pd, data, len, IBV_ACCESS_LOCAL_WRITE);
    return *handle ? 0 : -1;
}

int endpoint_open(struct endpoint *ep)
{
    if (acks_pool_open(ep->pd, &ep->acks) != 0)
        return -1;
    return slab_pool_create_reg(64, 64, 64, 0, endpoint_reg, ep, &ep->acks);
}
