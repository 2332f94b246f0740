#include <stdlib.h>
#include "pages.h"

#define PAGE_BYTES 4096

void *page_alloc(size_t bytes)
{
    void *block = NULL;
    if (posix_memalign(&block, PAGE_BYTES, bytes) != 0)
        return NULL;
    return block;
}

int page_alloc_into(void **out, size_t bytes)
{
    void *block = NULL;
    int rc = posix_memalign(&block, PAGE_BYTES, bytes);
    if (rc != 0)
        return rc;
    *out = block;
    return 0;
}
