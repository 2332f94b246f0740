#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "conn.h"

#define ROUND_UP(n, a) (((n) + (a) - 1) / (a) * (a))

/* Whole pages of its own for every block. */
int xport_page_alloc(void **out, size_t size)
{
    long page = sysconf(_SC_PAGESIZE);
    void *p = NULL;
    if (posix_memalign(&p, page, ROUND_UP(size, page)) != 0)
        return -1;
    memset(p, 0, size);
    *out = p;
    return 0;
}

int xport_calloc(void **out, size_t count, size_t size)
{
    *out = calloc(count, size);
    return *out ? 0 : -1;
}
