/* The completion rings: sizes come from the layout header's macros (include/ring_layout.h). */
#include <stdlib.h>
#include <sys/mman.h>
#include <infiniband/verbs.h>
#include "ring_layout.h"

struct ring {
    char *mem;
    struct ibv_mr *mr;
};

int ring_open(struct ring *r, struct ibv_pd *pd, size_t len)
{
    r->mem = malloc(RING_BYTES(RING_SLOTS));
    if (r->mem == NULL)
        return -1;
    r->mr = ibv_reg_mr(pd, r->mem, len, IBV_ACCESS_LOCAL_WRITE); // warning: CUR302 "registers `r->mem`, a 2064-byte block from malloc() on line 14"
    return r->mr ? 0 : -1;
}

int ring_open_small(struct ring *r, struct ibv_pd *pd)
{
    char *mem = calloc(1, RING_MAX(sizeof(struct ring_hdr), 512));
    if (mem == NULL)
        return -1;
    r->mem = mem;
    r->mr = ibv_reg_mr(pd, mem, RING_ALIGN_UP(sizeof(struct ring_hdr), 64), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301 "registers 64 bytes"
    return r->mr ? 0 : -1;
}

int ring_open_paged(struct ring *r, struct ibv_pd *pd)
{
    void *mem;

    if (posix_memalign(&mem, RING_PAGE, RING_PAGED_BYTES(RING_SLOTS)) != 0)
        return -1;
    r->mem = mem;
    r->mr = ibv_reg_mr(pd, mem, RING_PAGED_BYTES(RING_SLOTS), IBV_ACCESS_LOCAL_WRITE); // ok: CUR301, CUR302
    return r->mr ? 0 : -1;
}

int ring_open_rounded(struct ring *r, struct ibv_pd *pd)
{
    size_t bytes = RING_ALIGN_UP(RING_BYTES(RING_SLOTS), RING_PAGE);
    void *mem;

    if (posix_memalign(&mem, RING_PAGE, bytes) != 0)
        return -1;
    r->mem = mem;
    r->mr = ibv_reg_mr(pd, mem, bytes, IBV_ACCESS_LOCAL_WRITE); // ok: CUR301, CUR302
    return r->mr ? 0 : -1;
}

int ring_open_mapped(struct ring *r, struct ibv_pd *pd)
{
    r->mem = mmap(NULL, RING_BYTES(RING_SLOTS), PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r->mem == MAP_FAILED)
        return -1;
    r->mr = ibv_reg_mr(pd, r->mem, RING_BYTES(RING_SLOTS), IBV_ACCESS_LOCAL_WRITE); // ok: CUR302
    return r->mr ? 0 : -1;
}

int ring_open_sized(struct ring *r, struct ibv_pd *pd, size_t slots)
{
    r->mem = malloc(RING_BYTES(slots));
    if (r->mem == NULL)
        return -1;
    r->mr = ibv_reg_mr(pd, r->mem, RING_BYTES(slots), IBV_ACCESS_LOCAL_WRITE); // ok: CUR301, CUR302
    return r->mr ? 0 : -1;
}

int ring_open_inline(struct ring *r, struct ibv_pd *pd, size_t len)
{
    r->mem = malloc(RING_INLINE_BYTES(4));
    if (r->mem == NULL)
        return -1;
    r->mr = ibv_reg_mr(pd, r->mem, len, IBV_ACCESS_LOCAL_WRITE); // ok: CUR302
    return r->mr ? 0 : -1;
}
