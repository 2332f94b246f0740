/* Completion words polled by the host: a global array beside the rest of the data segment. */
#include <stdint.h>
#include <infiniband/verbs.h>

static uint64_t completions[512];
static struct ibv_mr *completions_mr;

/* On-demand paging: the kernel pins nothing, libibverbs marks no page. */
int watch_completions_lazily(struct ibv_pd *pd)
{
    completions_mr = ibv_reg_mr(pd, completions, sizeof(completions),
                                IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND); // ok: CUR302
    return completions_mr ? 0 : -1;
}

int watch_completions(struct ibv_pd *pd)
{
    completions_mr = ibv_reg_mr(pd, completions, sizeof(completions), IBV_ACCESS_LOCAL_WRITE); // warning: CUR302
    return completions_mr ? 0 : -1;
}
