/* CUR301: a page-aligned block owns its whole pages, not the last one when its size is not
 * whole pages (alignment and size are separate facts: the malloc heap puts other blocks in
 * the rest of that page). */
#include <stdlib.h>
#include <infiniband/verbs.h>

#define PAGE 4096
#define RING_BYTES (16 * PAGE + 128)

struct ibv_mr *register_ring(struct ibv_pd *pd)
{
    void *ring;
    if (posix_memalign(&ring, PAGE, RING_BYTES) != 0)
        return NULL;
    return ibv_reg_mr(pd, ring, RING_BYTES, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301@33
}

struct ibv_mr *register_ring_head(struct ibv_pd *pd)
{
    void *ring;
    if (posix_memalign(&ring, PAGE, RING_BYTES) != 0)
        return NULL;
    /* 100 bytes round out to the block's first page, which is its own */
    return ibv_reg_mr(pd, ring, 100, IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
}

struct ibv_mr *register_old_style(struct ibv_pd *pd)
{
    char *buf = valloc(5000);
    return ibv_reg_mr(pd, buf, 5000, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301@32
}

struct ibv_mr *register_whole_pages(struct ibv_pd *pd)
{
    char *buf = aligned_alloc(PAGE, 4 * PAGE);
    /* a sub-page length, but the block is whole pages: every rounded-out page is its own */
    return ibv_reg_mr(pd, buf, 3 * PAGE + 10, IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
}

struct ibv_mr *register_mapped(struct ibv_pd *pd, size_t len)
{
    char *buf = mmap(NULL, 5000, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return ibv_reg_mr(pd, buf, 5000, IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
}
