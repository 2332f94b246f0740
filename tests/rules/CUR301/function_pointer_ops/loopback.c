/* The loopback backend: nothing is registered, but `prepare` of both backends shares the
   field with verbs_prepare, which does register. */
#include <string.h>
#include "mem_ops.h"

static int loopback_prepare(struct ibv_pd *pd, void *buf, size_t len)
{
    (void)pd;
    memset(buf, 0, len);
    return 0;
}

const struct mem_ops loopback_mem_ops = {
    .reg_mem = NULL,
    .account = NULL,
    .prepare = loopback_prepare,
};
