/* Every staging registration is counted; the pinning itself lives in mr_pin.c. */
#include <stdio.h>
#include "mr_pin.h"
#include "staging.h"

static struct ibv_mr *staging_pin(struct staging *st, void *buf, size_t bytes)
{
    struct ibv_mr *mr = mr_pin(st->pd, buf, bytes);
    if (mr != NULL)
        st->pinned_bytes += bytes;
    return mr;
}

struct ibv_mr *staging_register(struct staging *st, void *buf, size_t bytes)
{
    if (bytes == 0)
        return NULL;
    return staging_pin(st, buf, bytes);
}

/* Headers are pinned twice (once per direction): two registrations, no single wrapper. */
struct ibv_mr *staging_register_header(struct staging *st, void *header, size_t bytes)
{
    struct ibv_mr *mr = mr_pin(st->pd, header, bytes);
    if (mr == NULL)
        return NULL;
    return mr_pin(st->pd, header, bytes) ? mr : NULL;
}

/* Only bookkeeping: hands its parameters to printf, not to a registration. */
int staging_account(struct staging *st, void *buf, size_t bytes)
{
    return printf("%p: %zu bytes (%lu pinned)\n", buf, bytes, st->pinned_bytes);
}
