/* The endpoint's pools: acknowledgements (88-byte entries, 8 a slab) and page-sized receive
   buffers, their slabs registered with its protection domain. */
#include <infiniband/verbs.h>
#include "slab_pool.h"

struct endpoint {
    struct ibv_pd *pd;
    struct slab_pool *acks;
    struct slab_pool *pages;
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
    return slab_pool_create_reg(sizeof(struct ack_msg), 8, 8, 256, endpoint_reg, ep, &ep->acks);
}
