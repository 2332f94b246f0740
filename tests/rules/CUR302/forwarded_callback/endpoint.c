/* The verbs endpoint keeps its control messages in a free list: it hands in a static function
   that registers each block, and one that only clears it. */
#include <string.h>
#include <infiniband/verbs.h>
#include "freelist.h"

struct endpoint {
    struct ibv_pd *pd;
    struct freelist ctrl;
};

static int endpoint_regmr(void *opaque, void *data, size_t size, void **handle)
{
    struct endpoint *ep = opaque;
    *handle = ibv_reg_mr(ep->pd, data, size, IBV_ACCESS_LOCAL_WRITE);
    return *handle ? 0 : -1;
}

static void endpoint_touch(void *data, size_t size)
{
    memset(data, 0, size);
}

int endpoint_start(struct endpoint *ep)
{
    return freelist_init_mr(&ep->ctrl, 64, endpoint_regmr, endpoint_touch, ep);
}
