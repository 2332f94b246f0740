/* A channel registers its header through whichever backend it was opened with. */
#include <stdint.h>
#include <stdlib.h>
#include "mem_ops.h"

struct header { uint64_t seq; uint32_t credits; };

struct channel {
    const struct mem_ops *ops;
    struct ibv_pd *pd;
    struct header *hdr;
    struct ibv_mr *hdr_mr;
};

int channel_open(struct channel *ch)
{
    ch->hdr = malloc(sizeof(struct header));
    if (ch->hdr == NULL)
        return -1;
    ch->ops->account(ch->pd, ch->hdr, sizeof(struct header)); // ok: CUR301, CUR302
    ch->ops->prepare(ch->pd, ch->hdr, sizeof(struct header)); // warning: CUR301@39 "ch->ops->prepare() may register 16 bytes"
    ch->ops->pin(ch->pd, ch->hdr, sizeof(struct header)); // ok: CUR301, CUR302
    ch->hdr_mr = ch->ops->reg_mem(ch->pd, ch->hdr, sizeof(struct header)); // warning: CUR301@52 "ch->ops->reg_mem() registers 16 bytes"
    return ch->hdr_mr ? 0 : -1;
}
