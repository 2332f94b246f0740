/* A slab cache that asks its owner to register each block it allocates (and to touch the
   pages of blocks it recycles). */
#ifndef SLAB_H
#define SLAB_H

#include <stddef.h>

typedef void *(*slab_register_fn)(void *owner, void *block, size_t len);
typedef void (*slab_touch_fn)(void *owner, void *block, size_t len);

struct slab {
    void *owner;
    slab_register_fn register_block;
    slab_touch_fn touch_block;
    void *handle;
};

void slab_init(struct slab *slab, void *owner, slab_register_fn register_block,
               slab_touch_fn touch_block);
int slab_grow(struct slab *slab);

#endif
