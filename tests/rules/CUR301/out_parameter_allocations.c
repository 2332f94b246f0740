/* CUR301: a pointer set to NULL first and then allocated through an out-parameter inside a
 * condition has that allocation as its memory: device memory is silent, a small heap block
 * is reported. */
#include <stdlib.h>
#include <cuda_runtime.h>
#include <infiniband/verbs.h>

struct ibv_mr *register_device_buffer(struct ibv_pd *pd)
{
    void *buf = NULL;
    if (cudaMalloc(&buf, 100) != cudaSuccess)
        return NULL;
    return ibv_reg_mr(pd, buf, 100, IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
}

struct ibv_mr *register_host_buffer(struct ibv_pd *pd)
{
    void *buf = NULL;
    if (posix_memalign(&buf, 64, 100) != 0)
        return NULL;
    return ibv_reg_mr(pd, buf, 100, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301@32
}

struct ibv_mr *register_reassigned(struct ibv_pd *pd, void *given)
{
    void *buf = given;
    if (cudaMalloc(&buf, 100) != cudaSuccess)
        return NULL;
    /* two sources, one the caller's: what it points into is not known */
    return ibv_reg_mr(pd, buf, 100, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301@32
}
