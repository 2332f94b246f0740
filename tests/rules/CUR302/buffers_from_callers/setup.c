/* Communicator setup, in its own file: allocates what the probe and log layers register. */
#include <stdlib.h>
#include <sys/mman.h>
#include "probe.h"

struct ops { int (*dev_init)(struct probe_ctx *, struct ibv_pd *); };
static const struct ops send_ops = { .dev_init = probe_dev_init_any };

int comm_setup(struct ibv_pd *pd, struct ibv_mr **mr)
{
    struct probe_ctx *ctx = mmap(NULL, sizeof(struct probe_send), PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (ctx == MAP_FAILED)
        return -1;
    ctx->is_send = 1;
    if (probe_dev_init(ctx, pd))
        return -1;
    if (probe_dev_init_any(ctx, pd))
        return -1;
    if (send_ops.dev_init(ctx, pd))
        return -1;
    char *stage = malloc(96);
    /* the stage's only caller: a 96-byte heap block shares its pages */
    return stage_pin(pd, stage, mr); // warning: CUR302 "stage_pin() (wraps ibv_reg_mr()) registers `stage`, a 96-byte block"
}

static int log_open(struct log_ring *ring, struct ibv_pd *pd, char *slots, size_t len)
{
    return ring_attach(ring, pd, slots, len);
}

int log_setup(struct log_ring *ring, struct ibv_pd *pd, size_t len)
{
    char *slots = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (slots == MAP_FAILED)
        return -1;
    char *spill = calloc(192, 1);
    if (log_open(ring, pd, slots, len)) // ok: CUR302
        return -1;
    /* one caller of several passes a small heap block: that call registers shared pages */
    return log_open(ring, pd, spill, len); // warning: CUR302 "`spill`, a 192-byte block from calloc()"
}
