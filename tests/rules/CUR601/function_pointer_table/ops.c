/* The tables: CMA for both directions; a copy through shared memory only; and a table whose
   `copy` is CMA for one transport and a copy through shared memory for the other. */
#include <string.h>
#include "copy_ops.h"

static ssize_t shm_copy(pid_t pid, const struct iovec *local, unsigned long nlocal,
                        const struct iovec *remote, unsigned long nremote,
                        unsigned long flags)
{
    (void)pid; (void)nlocal; (void)nremote; (void)flags;
    memcpy(local->iov_base, remote->iov_base, local->iov_len);
    return (ssize_t)local->iov_len;
}

const struct cma_op cma_ops[] = {
    [COPY_GET] = { .fn = process_vm_readv, .name = "get" },
    [COPY_PUT] = { .fn = process_vm_writev, .name = "put" },
};

const struct local_op local_ops[] = {
    { .local_copy = shm_copy },
};

const struct any_op any_ops[] = {
    { .copy = process_vm_readv, .name = "cma" },
    { .copy = shm_copy, .name = "shm" },
};
