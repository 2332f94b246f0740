/* A pool of fixed-size entries carved from slabs; a pool made with a registration callback
   asks its owner to register each slab it adds. */
#ifndef SLAB_POOL_H
#define SLAB_POOL_H

#include <pthread.h>
#include <stddef.h>

#define SLAB_ROUND_UP(x, a) ((((x) + (a) - 1) / (a)) * (a))
#define SLAB_MAX(a, b) ((a) > (b) ? (a) : (b))

typedef int (*slab_reg_fn)(void *owner, void *data, size_t len, void **handle);

struct slab_link {
    struct slab_link *next;
    void *handle;
};

struct slab {
    struct slab *next;
    void *handle;
};

struct slab_pool {
    size_t entry_size;
    size_t allocated;
    size_t max_entries;
    size_t grow_by;
    pthread_mutex_t lock;
    slab_reg_fn reg;
    void *owner;
    struct slab *slabs;
    struct slab_link *free;
};

struct ack_msg {
    unsigned long long seq;
    unsigned int credits;
    unsigned int flags;
    unsigned char digest[72];
};

int slab_pool_create(size_t entry_size, size_t initial, size_t grow_by, size_t max_entries,
                     struct slab_pool **out);
int slab_pool_create_reg(size_t entry_size, size_t initial, size_t grow_by,
                         size_t max_entries, slab_reg_fn reg, void *owner,
                         struct slab_pool **out);
int slab_pool_grow(struct slab_pool *pool, size_t want);
int requests_pool_open(struct slab_pool **out);

#endif
