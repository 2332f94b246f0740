/* A pool of fixed-size message slots; the owner registers each new block through `reg`. */
#ifndef MSGPOOL_H
#define MSGPOOL_H

#include <stddef.h>
#include <stdint.h>

#define MSGPOOL_PAGE 4096
#define MSGPOOL_SLOTS 16
#define MSGPOOL_ALIGN(x, a) (((x) + (a) - 1) & ~((size_t)(a) - 1))
#define MSGPOOL_SLOT_BYTES(t) MSGPOOL_ALIGN(sizeof(t), 8)

struct msg_slot {
    uint64_t seq;
    uint32_t len;
    uint32_t peer;
    char payload[100];
};

typedef int (*msgpool_reg_fn)(void *ctx, void *buf, size_t len, void **handle);

struct msgpool {
    msgpool_reg_fn reg;
    void *ctx;
    void *block;
    void *handle;
};

int msgpool_init(struct msgpool *pool, msgpool_reg_fn reg, void *ctx);
int msgpool_init_paged(struct msgpool *pool, msgpool_reg_fn reg, void *ctx);

#endif
