/* The endpoint hands the pools its registration function. */
#include <infiniband/verbs.h>
#include "msgpool.h"

struct endpoint {
    struct ibv_pd *pd;
    struct msgpool sends;
    struct msgpool recvs;
};

static int endpoint_reg(void *ctx, void *buf, size_t len, void **handle)
{
    struct endpoint *ep = ctx;

    *handle = ibv_reg_mr(ep->pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
    return *handle ? 0 : -1;
}

int endpoint_open(struct endpoint *ep)
{
    if (msgpool_init(&ep->sends, endpoint_reg, ep) != 0)
        return -1;
    return msgpool_init_paged(&ep->recvs, endpoint_reg, ep);
}
