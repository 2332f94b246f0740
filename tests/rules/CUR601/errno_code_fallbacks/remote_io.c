#define _GNU_SOURCE
#include <errno.h>
#include <sys/uio.h>
#include "remote_io.h"

ssize_t remote_pull(pid_t pid, void *dst, const void *src, size_t len)
{
    struct iovec local = { dst, len };
    struct iovec remote = { (void *)src, len };
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

    if (n < 0)
        return -errno;
    return n;
}
