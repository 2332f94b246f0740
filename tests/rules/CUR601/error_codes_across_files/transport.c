#include <stdio.h>
#include <sys/uio.h>
#include "transport.h"

#define CMA_ERR (-5)

int cma_copy(pid_t pid, void *dst, const void *src, size_t n)
{
    struct iovec local = {dst, n}, remote = {(void *)src, n};
    ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (got != (ssize_t)n)
        return CMA_ERR;
    return 0;
}

/* passes the error code on: a failed copy still comes out as CMA_ERR */
int pull_block(pid_t pid, void *dst, const void *src, size_t n)
{
    int rc = cma_copy(pid, dst, src, n);
    if (rc != 0) {
        fprintf(stderr, "pull failed\n");
        return rc;
    }
    return 0;
}

/* the failure is logged and reported as 0 bytes: no error code a caller could tell apart */
int try_copy(pid_t pid, void *dst, const void *src, size_t n)
{
    struct iovec local = {dst, n}, remote = {(void *)src, n};
    ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0); // ok: CUR601
    if (got < 0)
        return 0;
    return 0;
}
