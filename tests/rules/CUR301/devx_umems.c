/* CUR301/CUR302: a DEVX umem registered with mlx5dv_devx_umem_reg() is pinned like a memory
 * region: the mlx5 provider calls ibv_dontfork_range() on its range first. */
#include <stdlib.h>
#include <unistd.h>
#include <infiniband/mlx5dv.h>

#define DBR_BYTES 8
#define CQ_BYTES (64 * 4096)

struct devx_cq {
    void *doorbell;
    void *buffer;
    struct mlx5dv_devx_umem *doorbell_umem;
    struct mlx5dv_devx_umem *buffer_umem;
};

int devx_cq_create(struct ibv_context *ctx, struct devx_cq *cq)
{
    long page = sysconf(_SC_PAGESIZE);

    if (posix_memalign(&cq->doorbell, 8, DBR_BYTES))
        return -1;
    cq->doorbell_umem = mlx5dv_devx_umem_reg(ctx, cq->doorbell, DBR_BYTES, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301 "8 bytes"
    if (!cq->doorbell_umem)
        return -1;
    if (posix_memalign(&cq->buffer, page, CQ_BYTES))
        return -1;
    cq->buffer_umem = mlx5dv_devx_umem_reg(ctx, cq->buffer, CQ_BYTES, IBV_ACCESS_LOCAL_WRITE); // ok: CUR301, CUR302 (page-aligned whole pages)
    return cq->buffer_umem ? 0 : -1;
}
