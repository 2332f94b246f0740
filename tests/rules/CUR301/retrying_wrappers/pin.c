/* Registration with a retry: devices without the optional access bits get a second try. */
#include <errno.h>
#include <stdio.h>
#include "pin.h"

int kv_access(const struct kv_dev *dev, int remote)
{
    int access = IBV_ACCESS_LOCAL_WRITE;
    if (remote)
        access |= IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
    return dev->odp_capable ? access | IBV_ACCESS_RELAXED_ORDERING : access;
}

/* Pins the range; when the device refuses the access bits, retries on demand-paging if it can,
   else with local access only. Every try pins the same range. */
struct ibv_mr *kv_pin(struct kv_dev *dev, void *addr, size_t len, int remote)
{
    struct ibv_mr *mr = ibv_reg_mr(dev->pd, addr, len, kv_access(dev, remote));
    if (mr != NULL || errno != EOPNOTSUPP)
        return mr;
    if (dev->odp_capable)
        return ibv_reg_mr(dev->pd, addr, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
    fprintf(stderr, "kv: retrying %zu bytes with local access\n", len);
    return ibv_reg_mr(dev->pd, addr, len, IBV_ACCESS_LOCAL_WRITE);
}

/* On-demand paging only: the kernel faults pages in, nothing is pinned or marked. */
struct ibv_mr *kv_pin_lazy(struct kv_dev *dev, void *addr, size_t len)
{
    return ibv_reg_mr(dev->pd, addr, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
}

/* Two ranges: not a wrapper of either (a caller's lengths are each registration's own). */
struct ibv_mr *kv_pin_pair(struct kv_dev *dev, void *head, size_t head_len, void *body,
                           size_t body_len)
{
    struct ibv_mr *mr = ibv_reg_mr(dev->pd, head, head_len, IBV_ACCESS_LOCAL_WRITE);
    if (mr == NULL)
        return NULL;
    return ibv_reg_mr(dev->pd, body, body_len, IBV_ACCESS_LOCAL_WRITE) ? mr : NULL;
}
