/* The library's one registration entry point. */
#include <infiniband/verbs.h>

struct ibv_mr *lib_pin(struct ibv_pd *pd, void *addr, size_t len)
{
    return ibv_reg_mr(pd, addr, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
}
