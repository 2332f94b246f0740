/* The collective library's allocation macros: each stands for a C library allocator and drops
 * the tag it is given (kept for a leak tracker in debug builds). */
#ifndef COLL_ALLOC_H
#define COLL_ALLOC_H
#include <stdlib.h>

#define coll_malloc(_size, ...) malloc(_size)
#define coll_calloc(_count, _size, ...) calloc(_count, _size)
#define coll_memalign(_ptr, _align, _size, ...) posix_memalign(_ptr, _align, _size)
/* not a stand-in: the size it asks for is not the one it is given */
#define coll_malloc_tracked(_size, _tag) malloc((_size) + 64)

#endif
