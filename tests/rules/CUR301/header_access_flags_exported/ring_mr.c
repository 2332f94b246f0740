/* The transport's registration helpers, called from the other files (ring_users.c). */
#include <infiniband/verbs.h>
#include "access.h"

/* On-demand paging: the header's value says so, though the call does not name the bit. */
struct ibv_mr *ring_map(struct ibv_pd *pd, void *ring, size_t len)
{
    return ibv_reg_mr(pd, ring, len, RING_ACCESS);
}

/* Pins: the header's value is local write only. */
struct ibv_mr *control_pin(struct ibv_pd *pd, void *block, size_t len)
{
    return ibv_reg_mr(pd, block, len, CONTROL_ACCESS);
}

/* On-demand paging written in the call. */
struct ibv_mr *ring_map_lazy(struct ibv_pd *pd, void *ring, size_t len)
{
    return ibv_reg_mr(pd, ring, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
}

/* A wrapper of the on-demand one: nothing pinned either. */
struct ibv_mr *ring_map_slot(struct ibv_pd *pd, void *slot, size_t len)
{
    return ring_map(pd, slot, len);
}

/* The caller chooses the bits: no header tells what they are. */
struct ibv_mr *buffer_pin(struct ibv_pd *pd, void *buf, size_t len, int access)
{
    return ibv_reg_mr(pd, buf, len, access);
}
