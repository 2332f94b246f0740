#include <stdlib.h>

/* The project's tracked allocator: its parameters go to posix_memalign as they are. */
int xt_posix_memalign(void **ptr, size_t boundary, size_t size, const char *name)
{
    int ret = posix_memalign(ptr, boundary, size);
    (void)name;
    return ret;
}
