/* Pools like slab_pool_contexts/, each registering its slabs, whose registered length is not
   part of a page for any call that registers: whole pages, a size from run time, a size behind
   a lock set up by a function of the project, small slabs of a pool that registers none. */
#include <pthread.h>
#include <stdlib.h>
#include <infiniband/verbs.h>

typedef int (*reg_fn)(void *owner, void *data, size_t len, void **handle);

struct pool {
    size_t entry_size;
    pthread_mutex_t lock;
    reg_fn reg;
    void *owner;
    void *handle;
};

struct endpoint {
    struct ibv_pd *pd;
    size_t mtu;
    struct pool *pages, *frames, *locked;
};

void pool_lock_setup(pthread_mutex_t *lock);

static int reg_with_pd(void *owner, void *data, size_t len, void **handle)
{
    *handle = ibv_reg_mr(owner, data, len, IBV_ACCESS_LOCAL_WRITE);
    return *handle ? 0 : -1;
}

static int pool_grow(struct pool *pool, size_t count)
{
    void *data = malloc(pool->entry_size * count);

    return pool->reg(pool->owner, data, pool->entry_size * count, &pool->handle); // ok: CUR301, CUR302
}

static int pool_make(struct pool *pool, size_t entry_size, size_t count, reg_fn reg, void *owner)
{
    pool->entry_size = entry_size;
    pool->reg = reg;
    pool->owner = owner;
    pthread_mutex_init(&pool->lock, NULL);
    return pool_grow(pool, count);
}

static int locked_grow(struct pool *pool, size_t count)
{
    void *data = malloc(pool->entry_size * count);

    return pool->reg(pool->owner, data, pool->entry_size * count, &pool->handle); // ok: CUR301, CUR302
}

static int locked_make(struct pool *pool, size_t entry_size, size_t count, reg_fn reg,
                       void *owner)
{
    pool->entry_size = entry_size;
    pool->reg = reg;
    pool->owner = owner;
    pool_lock_setup(&pool->lock);  /* may reach the pool from its lock and resize it */
    return locked_grow(pool, count);
}

static int ring_grow(struct pool *pool, size_t count, int pinned)
{
    void *data = malloc(pool->entry_size * count);

    if (pinned)
        pool->handle = ibv_reg_mr(pool->owner, data, pool->entry_size * count, 0); // ok: CUR301, CUR302
    return data != NULL;
}

static int ring_make(struct pool *pool, size_t entry_size, size_t count, int pinned)
{
    pool->entry_size = entry_size;
    return ring_grow(pool, count, pinned);
}

int endpoint_rings(struct endpoint *ep)
{
    if (!ring_make(ep->frames, 96, 8, 0))  /* never registered */
        return -1;
    return ring_make(ep->pages, 4096, 2, 1);
}

int endpoint_pools(struct endpoint *ep)
{
    /* whole pages: 4 entries of a page each */
    if (pool_make(ep->pages, 4096, 4, reg_with_pd, ep->pd) != 0)
        return -1;
    /* the device's frame size, known at run time */
    if (pool_make(ep->frames, ep->mtu + 64, 8, reg_with_pd, ep->pd) != 0)
        return -1;
    return locked_make(ep->locked, 96, 8, reg_with_pd, ep->pd);
}
