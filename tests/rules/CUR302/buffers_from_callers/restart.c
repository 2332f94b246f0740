/* Re-initialisation after a device failure: again a block of whole pages, passed on twice. */
#include <stdlib.h>
#include "probe.h"

#define PROBE_BLOCK 4096

int comm_restart(struct ibv_pd *pd)
{
    void *block = NULL;
    if (posix_memalign(&block, PROBE_BLOCK, PROBE_BLOCK))
        return -1;
    if (probe_dev_reinit((struct probe_ctx *)block, pd))
        return -1;
    return probe_restart((struct probe_ctx *)block, pd);
}

int comm_adopt(struct ibv_pd *pd, struct probe_ctx *(*from_pool)(void))
{
    return probe_dev_reinit(from_pool(), pd);
}
