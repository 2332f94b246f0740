/* Control messages: registered through whichever provider the domain was opened with. */
#include <stdlib.h>
#include "fabric.h"

#define CTRL_BYTES 8192

struct ctrl_channel {
    struct fab_domain *dom;
    void *ring;
    void *ring_desc;
    void *credits;
    void *credits_desc;
};

int ctrl_open(struct ctrl_channel *ch)
{
    void *ring = malloc(CTRL_BYTES);
    void *credits = NULL;

    if (ring == NULL || posix_memalign(&credits, 4096, CTRL_BYTES) != 0)
        return -1;
    ch->ring = ring;
    ch->credits = credits;
    if (ch->dom->mr->reg(ch->dom, ring, CTRL_BYTES, &ch->ring_desc)) // warning: CUR302 "ch->dom->mr->reg() may register `ring`"
        return -1;
    return ch->dom->mr->reg(ch->dom, credits, CTRL_BYTES, &ch->credits_desc); // ok: CUR302 (page-aligned whole pages)
}

void ctrl_close(struct ctrl_channel *ch)
{
    ch->dom->mr->close(ch->dom, ch->ring_desc); // ok: CUR302 (no provider registers here)
    free(ch->ring);
}
