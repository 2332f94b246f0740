/* A client session: a doorbell word, a message slot and a staging ring. */
#include <stdint.h>
#include <stdlib.h>
#include "pin.h"

#define DOORBELL_BYTES sizeof(uint64_t)
#define SLOT_BYTES 512
#define RING_PAGES 16
#define PAGE 4096

struct session {
    struct kv_dev *dev;
    uint64_t *doorbell;
    char *slot;
    char *ring;
    char *scratch;
    struct ibv_mr *mrs[4];
};

int session_open(struct session *s)
{
    s->doorbell = malloc(DOORBELL_BYTES);
    s->slot = malloc(SLOT_BYTES);
    if (s->doorbell == NULL || s->slot == NULL)
        return -1;
    s->mrs[0] = kv_pin(s->dev, s->doorbell, DOORBELL_BYTES, 1); // warning: CUR301@45 "kv_pin() (wraps ibv_reg_mr()) registers 8 bytes, not whole 4096-byte pages"
    s->mrs[1] = kv_pin(s->dev, s->slot, SLOT_BYTES, 0); // warning: CUR301@41 "kv_pin() (wraps ibv_reg_mr()) registers 512 bytes"
    if (posix_memalign((void **)&s->ring, PAGE, RING_PAGES * PAGE) != 0)
        return -1;
    s->mrs[2] = kv_pin(s->dev, s->ring, RING_PAGES * PAGE, 1); // ok: CUR301
    return 0;
}

int session_scratch(struct session *s)
{
    s->scratch = malloc(SLOT_BYTES);
    if (s->scratch == NULL)
        return -1;
    s->mrs[3] = kv_pin_lazy(s->dev, s->scratch, SLOT_BYTES); // ok: CUR301
    return s->mrs[3] ? 0 : -1;
}

int session_pair(struct session *s, char *head, char *body)
{
    return kv_pin_pair(s->dev, head, 64, body, 128) ? 0 : -1; // ok: CUR301
}

/* On-demand paging asked directly: nothing is pinned, whatever the length. */
struct ibv_mr *session_peek(struct session *s, void *word)
{
    return ibv_reg_mr(s->dev->pd, word, 8, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND); // ok: CUR301
}

/* Without it, the same word is pinned, and its page marked. */
struct ibv_mr *session_poke(struct session *s, void *word)
{
    return ibv_reg_mr(s->dev->pd, word, 8, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301@41 "ibv_reg_mr() registers 8 bytes"
}
