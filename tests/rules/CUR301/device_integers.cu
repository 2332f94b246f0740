/* CUR301: the driver API hands device memory back as an integer (`CUdeviceptr`); cast to a
 * pointer and registered for GPUDirect it is still the device's, not a host page. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <infiniband/verbs.h>

#define HDR_BYTES 100

struct ibv_mr *register_driver_block(struct ibv_pd *pd)
{
    CUdeviceptr dptr;
    if (cuMemAlloc(&dptr, HDR_BYTES) != CUDA_SUCCESS)
        return NULL;
    return ibv_reg_mr(pd, (void *)dptr, HDR_BYTES, IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
}

struct ibv_mr *register_stream_block(struct ibv_pd *pd, CUstream stream)
{
    CUdeviceptr dptr = 0;
    cuMemAllocAsync(&dptr, HDR_BYTES, stream);
    return ibv_reg_mr(pd, (void *)(uintptr_t)dptr, HDR_BYTES, IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
}

struct ibv_mr *register_runtime_block(struct ibv_pd *pd, cudaStream_t stream)
{
    void *p = NULL;
    if (cudaMallocAsync(&p, HDR_BYTES, stream) != cudaSuccess)
        return NULL;
    return ibv_reg_mr(pd, p, HDR_BYTES, IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
}

/* look-alikes: host memory kept in an integer and cast back the same way */
struct ibv_mr *register_host_integer(struct ibv_pd *pd)
{
    uintptr_t addr = (uintptr_t)malloc(HDR_BYTES);
    return ibv_reg_mr(pd, (void *)addr, HDR_BYTES, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301@41
}

struct ibv_mr *register_either(struct ibv_pd *pd, int on_device)
{
    CUdeviceptr dptr;
    if (on_device)
        cuMemAlloc(&dptr, HDR_BYTES);
    else
        dptr = (CUdeviceptr)malloc(HDR_BYTES);
    return ibv_reg_mr(pd, (void *)dptr, HDR_BYTES, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301@41
}
