/* The pool's blocks: a heap block of slots, or (paged) whole pages of their own. */
#include <stdlib.h>
#include "msgpool.h"

int msgpool_init(struct msgpool *pool, msgpool_reg_fn reg, void *ctx)
{
    size_t bytes = MSGPOOL_SLOTS * MSGPOOL_SLOT_BYTES(struct msg_slot);

    pool->reg = reg;
    pool->ctx = ctx;
    pool->block = malloc(bytes);
    if (pool->block == NULL)
        return -1;
    return pool->reg(pool->ctx, pool->block, bytes, &pool->handle); // warning: CUR301 "pool->reg() registers 1920 bytes"
}

int msgpool_init_paged(struct msgpool *pool, msgpool_reg_fn reg, void *ctx)
{
    size_t bytes = MSGPOOL_ALIGN(MSGPOOL_SLOTS * MSGPOOL_SLOT_BYTES(struct msg_slot),
                                 MSGPOOL_PAGE);

    pool->reg = reg;
    pool->ctx = ctx;
    if (posix_memalign(&pool->block, MSGPOOL_PAGE, bytes) != 0)
        return -1;
    return pool->reg(pool->ctx, pool->block, bytes, &pool->handle); // ok: CUR301, CUR302
}
