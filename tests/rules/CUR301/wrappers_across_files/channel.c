/* A channel stages its ring and its control block through staging.c. */
#include <stdlib.h>
#include "staging.h"

#define PAGE_BYTES 4096
#define RING_BYTES (8 * PAGE_BYTES)
#define CONTROL_BYTES 192

struct channel {
    struct staging st;
    void *ring;
    char *control;
    struct ibv_mr *ring_mr;
    struct ibv_mr *control_mr;
};

int channel_open(struct channel *ch)
{
    if (posix_memalign(&ch->ring, PAGE_BYTES, RING_BYTES) != 0)
        return -1;
    ch->ring_mr = staging_register(&ch->st, ch->ring, RING_BYTES); // ok: CUR301
    ch->control = malloc(CONTROL_BYTES);
    if (ch->control == NULL)
        return -1;
    staging_account(&ch->st, ch->control, CONTROL_BYTES); // ok: CUR301
    ch->control_mr = staging_register(&ch->st, ch->control, CONTROL_BYTES); // warning: CUR301@61 "staging_register() (wraps ibv_reg_mr()) registers 192 bytes, not whole 4096-byte pages"
    return ch->ring_mr && ch->control_mr ? 0 : -1;
}

/* A helper of this file only: a wrapper of staging.c's wrapper, known when this file is linted. */
static struct ibv_mr *channel_stage(struct channel *ch, void *buf, size_t len)
{
    return staging_register(&ch->st, buf, len);
}

int channel_trailer(struct channel *ch)
{
    char *trailer = malloc(96);
    if (trailer == NULL)
        return -1;
    return channel_stage(ch, trailer, 96) ? 0 : -1; // warning: CUR301@39 "channel_stage() (wraps ibv_reg_mr()) registers 96 bytes"
}

int channel_header(struct channel *ch, char *header)
{
    /* not a wrapper: it registers twice (each call is found inside it, in staging.c) */
    return staging_register_header(&ch->st, header, 64) ? 0 : -1; // ok: CUR301
}
