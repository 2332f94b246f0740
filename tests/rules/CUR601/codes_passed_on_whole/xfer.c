#include "shm.h"

/* the channel's code handed on whole: its callers see -9 when the copy fails */
int xfer_pull(pid_t peer, void *dst, const void *src, size_t n)
{
    return shm_cma_read(peer, dst, src, n);
}

int xfer_kept(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = shm_cma_read(peer, dst, src, n);
    return rc;
}
