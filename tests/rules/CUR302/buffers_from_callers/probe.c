/* The registering side: the memory always comes in through a parameter. */
#include "probe.h"

int probe_dev_init(struct probe_ctx *ctx, struct ibv_pd *pd)
{
    struct probe_send *send = (struct probe_send *)ctx;
    /* every caller hands a block of whole pages of its own: the member's pages are its */
    send->results_mr = ibv_reg_mr(pd, &send->results, sizeof(send->results), // ok: CUR302
                                  IBV_ACCESS_LOCAL_WRITE);
    return send->results_mr ? 0 : -1;
}

/* also reached through an ops table: callers through the pointer are not seen */
int probe_dev_init_any(struct probe_ctx *ctx, struct ibv_pd *pd)
{
    struct probe_send *send = (struct probe_send *)ctx;
    send->results_mr = ibv_reg_mr(pd, &send->results, sizeof(send->results), // warning: CUR302 "the member `send->results`"
                                  IBV_ACCESS_LOCAL_WRITE);
    return send->results_mr ? 0 : -1;
}

int stage_pin(struct ibv_pd *pd, char *stage, struct ibv_mr **mr)
{
    /* a wrapper: each call of it is a registration, reported there */
    *mr = ibv_reg_mr(pd, stage, STAGE_BYTES, IBV_ACCESS_LOCAL_WRITE); // ok: CUR302
    return *mr ? 0 : -1;
}

int ring_pin(struct log_ring *ring, struct ibv_pd *pd, char *slots)
{
    ring->mr = ibv_reg_mr(pd, slots, ring->len, IBV_ACCESS_LOCAL_WRITE); // ok: CUR302
    return ring->mr ? 0 : -1;
}

/* the slab's header is registered with it: the memory comes through `slab` */
int slab_pin(void *slab, struct ibv_pd *pd)
{
    struct slab *s = slab;
    s->mr = ibv_reg_mr(pd, s, sizeof(*s), IBV_ACCESS_LOCAL_WRITE); // warning: CUR302 "ibv_reg_mr() registers `s`, its caller's `small`, a 192-byte block from calloc() on line 12 of slabs.c, passed to slab_pin() at slabs.c:17"
    return s->mr ? 0 : -1;
}

/* one caller passes whole pages, another memory not known: as without the callers */
int probe_dev_reinit(struct probe_ctx *ctx, struct ibv_pd *pd)
{
    struct probe_send *send = (struct probe_send *)ctx;
    send->results_mr = ibv_reg_mr(pd, &send->results, sizeof(send->results), // warning: CUR302 "the member `send->results`"
                                  IBV_ACCESS_LOCAL_WRITE);
    return send->results_mr ? 0 : -1;
}

/* no caller in the project (another library calls it): as without the callers */
int probe_dev_adopt(struct probe_ctx *ctx, struct ibv_pd *pd)
{
    struct probe_send *send = (struct probe_send *)ctx;
    send->results_mr = ibv_reg_mr(pd, &send->results, sizeof(send->results), // warning: CUR302
                                  IBV_ACCESS_LOCAL_WRITE);
    return send->results_mr ? 0 : -1;
}
