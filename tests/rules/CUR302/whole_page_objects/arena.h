/* Control blocks the connection registers words of: each one spans whole pages of its own. */
#ifndef ARENA_H
#define ARENA_H

#include <stddef.h>
#include <sys/mman.h>

static inline void *arena_pages(size_t bytes)
{
    void *block = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (block == MAP_FAILED)
        return NULL;
    return block;
}

#endif
