/* The receive ring allocates its slots and registers them through the cache. */
#include <stdlib.h>
#include <infiniband/verbs.h>
#include "mr_cache.h"

#define PAGE_BYTES 4096
#define SLOT_BYTES 2048
#define RING_BYTES (16 * PAGE_BYTES)

struct ring {
    char *slots;
    char *control;
    struct ibv_mr *slots_mr;
    struct ibv_mr *control_mr;
};

int ring_setup(struct ring *ring, struct ibv_pd *pd)
{
    void *slots = NULL;
    if (posix_memalign(&slots, PAGE_BYTES, RING_BYTES) != 0)
        return -1;
    ring->slots = slots;
    ring->slots_mr = mr_cache_register(pd, ring->slots, RING_BYTES); // ok: CUR301
    ring->control = malloc(SLOT_BYTES);
    if (ring->control == NULL)
        return -1;
    ring->control_mr = mr_cache_register(pd, ring->control, SLOT_BYTES); // warning: CUR301@61 "mr_cache_register() (wraps ibv_reg_mr()) registers 2048 bytes, not whole 4096-byte pages: unsafe with fork protection on"
    return ring->slots_mr && ring->control_mr ? 0 : -1;
}
