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

struct peers {
    void **acks;
    void *flag;
    void *host_flag;
    struct ibv_mr *mr;
};

/* device memory stored through a member or an element of one */
struct ibv_mr *register_peer_ack(struct ibv_pd *pd, struct peers *peers, int me)
{
    if (cudaMalloc(&peers->acks[me], sizeof(int)) != cudaSuccess)
        return NULL;
    if (cudaMalloc(&peers->flag, sizeof(int)) != cudaSuccess)
        return NULL;
    peers->mr = ibv_reg_mr(pd, peers->flag, sizeof(int), IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
    return ibv_reg_mr(pd, peers->acks[me], sizeof(int), IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
}

struct ibv_mr *register_peer_slot(struct ibv_pd *pd, struct peers *peers, int me)
{
    if (cudaMalloc(&peers->acks[me], sizeof(int)) != cudaSuccess)
        return NULL;
    me++;
    /* another element than the one allocated */
    return ibv_reg_mr(pd, peers->acks[me], sizeof(int), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
}

struct ibv_mr *register_host_flag(struct ibv_pd *pd, struct peers *peers)
{
    if (posix_memalign(&peers->host_flag, 64, 100) != 0)
        return NULL;
    return ibv_reg_mr(pd, peers->host_flag, 100, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
}

void peers_reset(struct peers *peers);

struct ibv_mr *register_after_reset(struct ibv_pd *pd, struct peers *peers)
{
    if (cudaMalloc(&peers->flag, sizeof(int)) != cudaSuccess)
        return NULL;
    peers_reset(peers);  /* may give the member another block */
    return ibv_reg_mr(pd, peers->flag, sizeof(int), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
}
