/* The pool: each slab is one malloc'ed block, registered whole when the pool has a callback. */
#include <errno.h>
#include <stdlib.h>
#include "slab_pool.h"

static int pool_setup(size_t entry_size, size_t initial, size_t grow_by, size_t max_entries,
                      slab_reg_fn reg, void *owner, struct slab_pool **out)
{
    struct slab_pool *pool = malloc(sizeof(*pool));
    int ret;

    if (pool == NULL)
        return -ENOMEM;
    pool->entry_size = SLAB_ROUND_UP(SLAB_MAX(entry_size, sizeof(struct slab_link)), 8);
    pool->allocated = 0;
    pool->max_entries = max_entries;
    pool->grow_by = grow_by;
    pool->reg = reg;
    pool->owner = owner;
    pool->slabs = NULL;
    pool->free = NULL;
    if (pthread_mutex_init(&pool->lock, NULL) != 0) {
        free(pool);
        return -EINVAL;
    }
    ret = slab_pool_grow(pool, initial);
    if (ret != 0) {
        pthread_mutex_destroy(&pool->lock);
        free(pool);
        return ret;
    }
    *out = pool;
    return 0;
}

int slab_pool_create(size_t entry_size, size_t initial, size_t grow_by, size_t max_entries,
                     struct slab_pool **out)
{
    return pool_setup(entry_size, initial, grow_by, max_entries, NULL, NULL, out);
}

int slab_pool_create_reg(size_t entry_size, size_t initial, size_t grow_by,
                         size_t max_entries, slab_reg_fn reg, void *owner,
                         struct slab_pool **out)
{
    return pool_setup(entry_size, initial, grow_by, max_entries, reg, owner, out);
}

int slab_pool_grow(struct slab_pool *pool, size_t want)
{
    size_t count = want;
    char *data;
    struct slab *slab;

    if (pool->max_entries > 0 && pool->max_entries - pool->allocated < count)
        count = pool->max_entries - pool->allocated;
    if (count == 0) {
        errno = ENOSPC;
        return -ENOMEM;
    }
    data = malloc(pool->entry_size * count + sizeof(struct slab));
    if (data == NULL)
        return -ENOMEM;
    slab = (struct slab *)(data + pool->entry_size * count);
    slab->next = pool->slabs;
    if (pool->reg) {
        int ret = pool->reg(pool->owner, data, pool->entry_size * count, &slab->handle); // warning: CUR301 "pool->reg() registers up to 704 bytes"
        if (ret != 0) {
            free(data);
            return ret;
        }
    } else {
        slab->handle = NULL;
    }
    pool->slabs = slab;
    pool->allocated += count;
    return 0;
}

/* The request pool: small entries, never registered. */
int requests_pool_open(struct slab_pool **out)
{
    return slab_pool_create(sizeof(struct ack_msg), 3, 3, 0, out);
}
