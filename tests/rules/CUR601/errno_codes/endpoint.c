#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include "cma_io.h"

void ep_get(pid_t peer, void *dst, const void *src, size_t n)
{
    int ret = cma_io_pull(peer, dst, src, n);
    assert(ret == 0); // warning: CUR601@5
}

void ep_get_checked(pid_t peer, void *dst, const void *src, size_t n)
{
    int ret = cma_io_read(peer, dst, src, n);
    if (ret != 0)
        abort(); // warning: CUR601@9
}

/* EPERM (Yama) falls back to the shared-memory copy: which -errno comes is not known */
int ep_get_or_shm(pid_t peer, void *dst, const void *src, size_t n)
{
    int ret = cma_io_read(peer, dst, src, n);
    if (ret == -EPERM)
        return copy_through_shm(dst, src, n);
    if (ret < 0)
        abort(); // ok: CUR601
    return 0;
}

/* the code goes back to the API's user */
int ep_get_api(pid_t peer, void *dst, const void *src, size_t n)
{
    int ret = cma_io_pull(peer, dst, src, n);
    if (ret < 0)
        return ret; // ok: CUR601
    return 0;
}
