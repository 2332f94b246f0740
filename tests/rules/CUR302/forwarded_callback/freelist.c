/* The free list never names a registration API: it calls what its owner handed in. */
#include <stdlib.h>
#include <sys/mman.h>
#include "freelist.h"

#define FREELIST_BLOCK_BYTES 8192
#define FREELIST_PAGE_BYTES 4096

static int freelist_init_internal(struct freelist *fl, size_t entry_size,
                                  freelist_regmr_fn regmr_fn, freelist_touch_fn touch_fn,
                                  void *opaque)
{
    fl->entry_size = entry_size;
    fl->regmr_fn = regmr_fn;
    fl->touch_fn = touch_fn;
    fl->opaque = opaque;
    fl->handle = NULL;
    return 0;
}

int freelist_init_mr(struct freelist *fl, size_t entry_size, freelist_regmr_fn regmr_fn,
                     freelist_touch_fn touch_fn, void *opaque)
{
    return freelist_init_internal(fl, entry_size, regmr_fn, touch_fn, opaque);
}

int freelist_add(struct freelist *fl)
{
    char *block = malloc(FREELIST_BLOCK_BYTES);
    char *spare = malloc(FREELIST_BLOCK_BYTES);
    if (block == NULL || spare == NULL)
        return -1;
    fl->touch_fn(spare, FREELIST_BLOCK_BYTES); // ok: CUR302
    return fl->regmr_fn(fl->opaque, block, FREELIST_BLOCK_BYTES, &fl->handle); // warning: CUR302@37 "fl->regmr_fn() registers `block`, a 8192-byte block from malloc() on line 29"
}

int freelist_add_pages(struct freelist *fl)
{
    void *block = mmap(NULL, FREELIST_PAGE_BYTES, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (block == MAP_FAILED)
        return -1;
    return fl->regmr_fn(fl->opaque, block, FREELIST_PAGE_BYTES, &fl->handle); // ok: CUR302
}
