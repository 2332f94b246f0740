/* The cache never names a registration API: it calls what its owner handed to slab_init(). */
#include <stdlib.h>
#include "slab.h"

#define SLAB_BLOCK_BYTES 8192

void slab_init(struct slab *slab, void *owner, slab_register_fn register_block,
               slab_touch_fn touch_block)
{
    slab->owner = owner;
    slab->register_block = register_block;
    slab->touch_block = touch_block;
}

int slab_grow(struct slab *slab)
{
    char *block = malloc(SLAB_BLOCK_BYTES);
    char *spare = malloc(SLAB_BLOCK_BYTES);
    if (block == NULL || spare == NULL)
        return -1;
    slab->touch_block(slab->owner, spare, SLAB_BLOCK_BYTES); // ok: CUR302
    slab->handle = slab->register_block(slab->owner, block, SLAB_BLOCK_BYTES); // warning: CUR302@54 "slab->register_block() registers `block`"
    return slab->handle ? 0 : -1;
}
