#define _GNU_SOURCE
#include <sys/uio.h>
#include "../common/rt_debug.h"

extern int copy_through_fragments(void *dst, void *src, size_t n);

static int cma_read(pid_t pid, void *dst, void *src, size_t n)
{
    struct iovec local = {dst, n}, remote = {src, n};

    if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != (ssize_t)n)
        return 1;
    return 0;
}

int rail_get(pid_t pid, void *dst, void *src, size_t n)
{
    int ret = cma_read(pid, dst, src, n);
    rt_assume(ret == 0); // warning: CUR601 "rt_assume() aborts"
    return 0;
}

int rail_get_failing_loudly(pid_t pid, void *dst, void *src, size_t n)
{
    int ret = cma_read(pid, dst, src, n);
    rt_die_if(ret != 0); // warning: CUR601
    return 0;
}

int rail_get_noted(pid_t pid, void *dst, void *src, size_t n)
{
    int ret = cma_read(pid, dst, src, n);
    rt_note(ret == 0); // ok: CUR601
    if (ret != 0)
        return copy_through_fragments(dst, src, n);
    return 0;
}

int rail_get_assuming_the_opposite(pid_t pid, void *dst, void *src, size_t n)
{
    int ret = cma_read(pid, dst, src, n);
    rt_assume(ret != 0 || n > 0); // ok: CUR601
    return ret;
}
