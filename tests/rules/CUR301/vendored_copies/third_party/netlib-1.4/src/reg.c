/* netlib 1.4: memory registration was stubbed out on this branch (software transport only). */
#include <stddef.h>
#include <infiniband/verbs.h>

int netlib_reg(struct ibv_pd *pd, void *addr, size_t len, struct ibv_mr **mr)
{
    (void)pd;
    (void)addr;
    (void)len;
    *mr = NULL;
    return -1;
}
