/* The log ring and the probe restart hand what they get on, unchanged. */
#include "probe.h"

int ring_attach(struct log_ring *ring, struct ibv_pd *pd, char *slots, size_t len)
{
    if (len == 0)
        return -1;
    ring->slots = slots;
    return ring_pin(ring, pd, slots);
}

int probe_restart(struct probe_ctx *ctx, struct ibv_pd *pd)
{
    ctx->ndevs = 0;
    return probe_dev_init(ctx, pd);
}
