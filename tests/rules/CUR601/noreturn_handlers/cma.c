#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include "runtime.h"

#define MAX_CMA_CHUNK (1UL << 30)

/* reads a remote buffer in chunks: a refused read ends the run */
int cma_read(pid_t pid, char *local, char *remote, size_t n)
{
    size_t offset = 0;
    struct iovec here, there;

    if (n == 0)
        rt_abort("cma_read of nothing"); // ok: CUR601
    while (offset < n) {
        ssize_t want = n - offset > MAX_CMA_CHUNK ? MAX_CMA_CHUNK : n - offset;
        here.iov_base = local + offset;
        there.iov_base = remote + offset;
        here.iov_len = there.iov_len = want;
        ssize_t got = process_vm_readv(pid, &here, 1, &there, 1, 0);
        if (got != want) {
            rt_abort("process_vm_readv failed: %zd of %zd bytes, %s", got, want, // warning: CUR601@13
                     strerror(errno));
            return errno;
        }
        offset += want;
    }
    return 0;
}

/* a refused write is logged and returned: the caller copies through shared memory */
int cma_write(pid_t pid, char *local, char *remote, size_t n)
{
    struct iovec here = { local, n }, there = { remote, n };
    ssize_t put = process_vm_writev(pid, &here, 1, &there, 1, 0);
    if (put != (ssize_t)n) {
        rt_warn("process_vm_writev failed: %s\n", strerror(errno)); // ok: CUR601
        return -1;
    }
    return 0;
}

/* a refused read falls back to the copy through shared memory */
int cma_read_or_copy(pid_t pid, char *local, char *remote, size_t n)
{
    struct iovec here = { local, n }, there = { remote, n };
    ssize_t got = process_vm_readv(pid, &here, 1, &there, 1, 0);
    if (got < 0)
        return shm_copy(local, remote, n);
    if (got != (ssize_t)n)
        rt_layer_abort("short CMA read"); // ok: CUR601
    return 0;
}

/* the layer's end on a refused write */
void cma_put_flag(pid_t pid, char *flag, char *remote_flag)
{
    struct iovec here = { flag, 1 }, there = { remote_flag, 1 };
    if (process_vm_writev(pid, &here, 1, &there, 1, 0) < 0)
        rt_layer_abort("process_vm_writev refused"); // warning: CUR601@9
}
