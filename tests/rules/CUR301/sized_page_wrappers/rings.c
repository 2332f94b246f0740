/* CUR301 through a page allocator of another file: its blocks start on a page and are the
 * size the caller asks for, so the caller's constant decides whether the last page is shared
 * (alignment and size are separate facts). */
#include <infiniband/verbs.h>
#include "pages.h"

#define PAGE 4096
#define RING_BYTES (16 * PAGE + 128)
#define SLOT_PAGES 4

struct ibv_mr *register_last_slot(struct ibv_pd *pd)
{
    char *slots = page_alloc(SLOT_PAGES * PAGE);
    if (slots == NULL)
        return NULL;
    /* 64 bytes of the block's last page: a page of its own (four whole pages) */
    return ibv_reg_mr(pd, slots + 3 * PAGE, 64, IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
}

struct ibv_mr *register_ring_head(struct ibv_pd *pd)
{
    void *ring = page_alloc(RING_BYTES);
    /* 100 bytes of the block's first page, which is its own */
    return ibv_reg_mr(pd, ring, 100, IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
}

struct ibv_mr *register_second_page(struct ibv_pd *pd)
{
    void *ring = page_alloc(RING_BYTES);
    return ibv_reg_mr(pd, (char *)ring + PAGE, 256, IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
}

struct ibv_mr *register_ring(struct ibv_pd *pd)
{
    void *ring = page_alloc(RING_BYTES);
    /* the block's last page holds 128 bytes of it and whatever the heap puts beside them */
    return ibv_reg_mr(pd, ring, RING_BYTES, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301@33
}

struct ibv_mr *register_ring_tail(struct ibv_pd *pd)
{
    void *ring = page_alloc(RING_BYTES);
    return ibv_reg_mr(pd, (char *)ring + 16 * PAGE, 64, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301@53
}

struct ibv_mr *register_ring_out(struct ibv_pd *pd)
{
    void *ring;
    if (page_alloc_into(&ring, RING_BYTES) != 0)
        return NULL;
    return ibv_reg_mr(pd, ring, RING_BYTES, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301@33
}

struct ibv_mr *register_slots_out(struct ibv_pd *pd)
{
    void *slots;
    if (page_alloc_into(&slots, SLOT_PAGES * PAGE) != 0)
        return NULL;
    return ibv_reg_mr(pd, slots, 100, IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
}

/* an offset that is no whole number of pages is past the start of the block, as before */
struct ibv_mr *register_inside_page(struct ibv_pd *pd)
{
    char *slots = page_alloc(SLOT_PAGES * PAGE);
    return ibv_reg_mr(pd, slots + 64, 64, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301@39
}

/* counted in elements, not bytes: 3 * PAGE ints are past the block's end */
struct ibv_mr *register_words(struct ibv_pd *pd)
{
    int *words = page_alloc(SLOT_PAGES * PAGE);
    return ibv_reg_mr(pd, words + 3 * PAGE, 64, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301@45
}
