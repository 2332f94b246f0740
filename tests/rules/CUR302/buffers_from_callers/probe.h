/* Probing of a failed path: each send context keeps the results its peers write back. */
#ifndef PROBE_H
#define PROBE_H
#include <stddef.h>
#include <infiniband/verbs.h>

#define STAGE_BYTES 96

struct probe_ctx { int ndevs; int is_send; };
struct probe_send {
    struct probe_ctx base;
    struct ibv_mr *results_mr;
    unsigned char results[16][4];
};
struct log_ring { struct ibv_mr *mr; char *slots; size_t len; };

int probe_dev_init(struct probe_ctx *ctx, struct ibv_pd *pd);
int probe_dev_init_any(struct probe_ctx *ctx, struct ibv_pd *pd);
struct slab { struct ibv_mr *mr; char data[176]; };
int slab_pin(void *slab, struct ibv_pd *pd);
int probe_dev_reinit(struct probe_ctx *ctx, struct ibv_pd *pd);
int probe_dev_adopt(struct probe_ctx *ctx, struct ibv_pd *pd);
int probe_restart(struct probe_ctx *ctx, struct ibv_pd *pd);
int stage_pin(struct ibv_pd *pd, char *stage, struct ibv_mr **mr);
int ring_pin(struct log_ring *ring, struct ibv_pd *pd, char *slots);
int ring_attach(struct log_ring *ring, struct ibv_pd *pd, char *slots, size_t len);

#endif
