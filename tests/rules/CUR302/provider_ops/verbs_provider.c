/* The verbs provider registers every buffer with the NIC. */
#include "fabric.h"

static struct fab_mr_ops verbs_mr_ops;

static int verbs_mr_reg(struct fab_domain *dom, void *buf, size_t len, void **desc)
{
    struct ibv_mr *mr = ibv_reg_mr(dom->pd, buf, len,
                                   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    *desc = mr;
    return mr ? 0 : -1;
}

static int verbs_mr_close(struct fab_domain *dom, void *desc)
{
    (void)dom;
    return ibv_dereg_mr(desc);
}

int verbs_domain_open(struct fab_domain *dom, struct ibv_pd *pd)
{
    verbs_mr_ops.reg = verbs_mr_reg;
    verbs_mr_ops.close = verbs_mr_close;
    dom->mr = &verbs_mr_ops;
    dom->pd = pd;
    return 0;
}
