/* netlib 2.0: registers with the verbs provider. */
#include <stddef.h>
#include <infiniband/verbs.h>

int netlib_reg(struct ibv_pd *pd, void *addr, size_t len, struct ibv_mr **mr)
{
    *mr = ibv_reg_mr(pd, addr, len, IBV_ACCESS_LOCAL_WRITE);
    return *mr != NULL ? 0 : -1;
}
