/* CUR301 through another file's wrappers whose access flags are macros of its header. */
#include <stdlib.h>
#include <infiniband/verbs.h>

struct ibv_mr *ring_map(struct ibv_pd *pd, void *ring, size_t len);
struct ibv_mr *control_pin(struct ibv_pd *pd, void *block, size_t len);
struct ibv_mr *ring_map_lazy(struct ibv_pd *pd, void *ring, size_t len);
struct ibv_mr *ring_map_slot(struct ibv_pd *pd, void *slot, size_t len);
struct ibv_mr *buffer_pin(struct ibv_pd *pd, void *buf, size_t len, int access);

/* Hands its range on to the on-demand wrapper of the other file. */
static struct ibv_mr *ring_map_entry(struct ibv_pd *pd, void *entry, size_t len)
{
    return ring_map(pd, entry, len);
}

int ring_setup(struct ibv_pd *pd, struct ibv_mr **mrs)
{
    char *ring = malloc(64);
    char *control = malloc(64);
    char *lazy = malloc(64);
    char *slot = malloc(96);
    char *entry = malloc(80);
    char *buf = malloc(48);
    if (!ring || !control || !lazy || !slot || !entry || !buf)
        return -1;
    mrs[0] = ring_map(pd, ring, 64); // ok: CUR301
    mrs[1] = control_pin(pd, control, 64); // warning: CUR301@39 "control_pin() (wraps ibv_reg_mr()) registers 64 bytes"
    mrs[2] = ring_map_lazy(pd, lazy, 64); // ok: CUR301
    mrs[3] = ring_map_slot(pd, slot, 96); // ok: CUR301
    mrs[4] = ring_map_entry(pd, entry, 80); // ok: CUR301
    mrs[5] = buffer_pin(pd, buf, 48, 1); // warning: CUR301@34 "buffer_pin() (wraps ibv_reg_mr()) registers 48 bytes"
    return 0;
}
