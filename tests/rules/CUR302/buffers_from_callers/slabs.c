/* Slabs for small control messages: one from the heap, one of whole pages. */
#include <stdlib.h>
#include <sys/mman.h>
#include "probe.h"

#define SLAB_BYTES 192
#define SLAB_PAGES (2 * 4096)

int slabs_grow(struct ibv_pd *pd)
{
    void *pages = mmap(NULL, SLAB_PAGES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void *small = calloc(1, SLAB_BYTES);
    if (pages == MAP_FAILED || small == NULL)
        return -1;
    if (slab_pin(pages, pd))
        return -1;
    return slab_pin(small, pd);
}

/* a static helper: its calls are this file's own, each with whole pages */
static int slab_mark(void *slab, struct ibv_pd *pd)
{
    struct slab *s = slab;
    s->mr = ibv_reg_mr(pd, &s->data, sizeof(s->data), IBV_ACCESS_LOCAL_WRITE); // ok: CUR302
    return s->mr ? 0 : -1;
}

int slabs_mark(struct ibv_pd *pd)
{
    void *pages = mmap(NULL, SLAB_PAGES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED)
        return -1;
    return slab_mark(pages, pd);
}
