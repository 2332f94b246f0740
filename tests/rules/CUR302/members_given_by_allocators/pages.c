/* Whole pages of their own for every context a connection registers from. */
#include <stdlib.h>
#include <unistd.h>
#include "conn.h"

int wq_alloc_at(void **ptr, size_t bytes, int line)
{
    long page = sysconf(_SC_PAGESIZE);
    void *p = NULL;
    (void)line;
    if (posix_memalign(&p, page, (bytes + page - 1) & ~(page - 1)))
        return -1;
    *ptr = p;
    return 0;
}

int heap_into(void **ptr, size_t bytes)
{
    *ptr = calloc(1, bytes);
    return *ptr ? 0 : -1;
}
