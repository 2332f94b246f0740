/* Host memory the transport may register: blocks that start on a page and span whole pages,
 * so that the pages a registration rounds out to are the block's own. */
#ifndef POOL_H
#define POOL_H

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bits.h"

static inline size_t pool_page_size(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

static inline int pool_alloc_impl(void **out, size_t bytes, const char *file, int line)
{
    void *block = NULL;
    size_t page = pool_page_size();
    size_t rounded = ROUND_TO(bytes, page);
    (void)file;
    (void)line;
    if (posix_memalign(&block, page, rounded) != 0)
        return -1;
    memset(block, 0, bytes);
    *out = block;
    return 0;
}
#define pool_alloc(...) pool_alloc_impl(__VA_ARGS__, __FILE__, __LINE__)

/* in place: the size is padded to whole pages before the allocation */
static inline void *pool_take(size_t bytes)
{
    long page = sysconf(_SC_PAGESIZE);
    void *block;
    PAD_IN_PLACE(bytes, page);
    if (posix_memalign(&block, page, bytes) != 0)
        return NULL;
    return block;
}

/* aligned to a page, but the size is not rounded: its last page holds other blocks */
static inline int pool_alloc_aligned(void **out, size_t bytes)
{
    return posix_memalign(out, pool_page_size(), bytes);
}

/* the larger of two sizes is not a rounded one */
static inline int pool_alloc_at_least(void **out, size_t bytes)
{
    void *block;
    size_t page = pool_page_size();
    if (posix_memalign(&block, page, LARGER(bytes, page)) != 0)
        return -1;
    *out = block;
    return 0;
}

#endif
