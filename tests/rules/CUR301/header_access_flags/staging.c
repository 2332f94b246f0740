/* CUR301 through wrappers whose access flags are macros of a project header (access.h). */
#include <stdlib.h>
#include <infiniband/verbs.h>
#include "access.h"

/* On-demand paging: the header's value says so, though the call does not name the bit. */
static struct ibv_mr *map_scratch(struct ibv_pd *pd, void *buf, size_t len)
{
    return ibv_reg_mr(pd, buf, len, SCRATCH_ACCESS);
}

/* Pins: the header's value is local write only. */
static struct ibv_mr *pin_header(struct ibv_pd *pd, void *buf, size_t len)
{
    return ibv_reg_mr(pd, buf, len, HEADER_ACCESS);
}

/* On-demand paging written in the call. */
static struct ibv_mr *map_lazy(struct ibv_pd *pd, void *buf, size_t len)
{
    return ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
}

/* A wrapper of the on-demand one: nothing pinned either. */
static struct ibv_mr *map_scratch_slot(struct ibv_pd *pd, void *slot, size_t len)
{
    return map_scratch(pd, slot, len);
}

int stage(struct ibv_pd *pd, struct ibv_mr **mrs)
{
    char *scratch = malloc(64);
    char *header = malloc(64);
    char *lazy = malloc(64);
    char *slot = malloc(96);
    if (scratch == NULL || header == NULL || lazy == NULL || slot == NULL)
        return -1;
    mrs[0] = map_scratch(pd, scratch, 64); // ok: CUR301
    mrs[1] = pin_header(pd, header, 64); // warning: CUR301@37 "pin_header() (wraps ibv_reg_mr()) registers 64 bytes"
    mrs[2] = map_lazy(pd, lazy, 64); // ok: CUR301
    mrs[3] = map_scratch_slot(pd, slot, 96); // ok: CUR301
    return 0;
}
