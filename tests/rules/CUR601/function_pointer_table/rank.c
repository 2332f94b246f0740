/* Moving a rank's buffers: asserting on a table's CMA copy aborts where ptrace is restricted. */
#include <assert.h>
#include <string.h>
#include "copy_ops.h"

#define XFER_FAILED (-9)

void rank_move(enum copy_dir dir, pid_t peer, struct iovec *local, struct iovec *remote)
{
    ssize_t n = cma_ops[dir].fn(peer, local, 1, remote, 1, 0);
    assert(n == (ssize_t)local->iov_len); // warning: CUR601 "cma_ops[dir].fn() (holds process_vm_readv/writev())"
}

/* the failure is checked and recovered with a copy through shared memory */
ssize_t rank_move_or_copy(enum copy_dir dir, pid_t peer, struct iovec *local,
                          struct iovec *remote, void *shared)
{
    ssize_t n = cma_ops[dir].fn(peer, local, 1, remote, 1, 0);
    if (n != (ssize_t)local->iov_len) {
        memcpy(local->iov_base, shared, local->iov_len);
        return (ssize_t)local->iov_len;
    }
    assert(n == (ssize_t)local->iov_len); // ok: CUR601
    return n;
}

/* the failure becomes an error code, asserted on by the caller */
static int pull(pid_t peer, struct iovec *local, struct iovec *remote)
{
    ssize_t n = cma_ops[COPY_GET].fn(peer, local, 1, remote, 1, 0);
    if (n != (ssize_t)local->iov_len)
        return XFER_FAILED;
    return 0;
}

void rank_sync(pid_t peer, struct iovec *local, struct iovec *remote)
{
    int rc = pull(peer, local, remote);
    assert(rc == 0); // warning: CUR601 "pull() (returns -9 if process_vm_readv/writev() fails)"
}

/* `copy` may be shm_copy: whether it is CMA is not known here */
void rank_move_any(int transport, pid_t peer, struct iovec *local, struct iovec *remote)
{
    ssize_t n = any_ops[transport].copy(peer, local, 1, remote, 1, 0);
    assert(n == (ssize_t)local->iov_len); // ok: CUR601
}

/* only ever a copy through shared memory */
void rank_copy_local(pid_t peer, struct iovec *local, struct iovec *remote)
{
    ssize_t n = local_ops[0].local_copy(peer, local, 1, remote, 1, 0);
    assert(n == (ssize_t)local->iov_len); // ok: CUR601
}
