#define _GNU_SOURCE
#include <sys/uio.h>
#include "vm_read.h"

ssize_t vm_read(pid_t pid, void *dst, const void *src, size_t len)
{
    struct iovec local = { dst, len };
    struct iovec remote = { (void *)src, len };
    return process_vm_readv(pid, &local, 1, &remote, 1, 0);
}
