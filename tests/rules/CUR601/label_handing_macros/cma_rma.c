/* One-sided reads and writes between processes of a node with cross-memory attach. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include "xfer_error.h"

enum { XFER_OK = 0, XFER_PERMISSION = 1, XFER_SIZE = 2 };

/* Both failures jump to the function's label through a macro: handed back to the caller. */
int cma_write(pid_t peer, const struct iovec *local, const struct iovec *remote, size_t len)
{
    int ret;
    ssize_t done = process_vm_writev(peer, local, 1, remote, 1, 0);
    if (done < 0) {
        if (errno == EPERM)
            XFER_GOTO_ERROR(error, ret, XFER_PERMISSION, "cross-memory attach refused\n");
        else
            XFER_GOTO_ERROR(error, ret, XFER_SIZE, "process_vm_writev(): %s\n", strerror(errno));
    }
    XFER_CHECK_ERROR((size_t)done != len, error, ret, XFER_SIZE, "short write\n"); // ok: CUR601
    return XFER_OK;

error:
    return ret;
}

/* The check itself jumps to the label: no assertion, whatever its name says. */
int cma_read(pid_t peer, const struct iovec *local, const struct iovec *remote, size_t len)
{
    int ret = XFER_OK;
    XFER_CHECK_ERROR(process_vm_readv(peer, local, 1, remote, 1, 0) != (ssize_t)len, out, ret, // ok: CUR601
                     XFER_SIZE, "process_vm_readv() failed\n");
out:
    return ret;
}

/* A function with a label whose failure branch only logs: the assertion after it is reached. */
int cma_read_checked(pid_t peer, const struct iovec *local, const struct iovec *remote, size_t len)
{
    ssize_t got = process_vm_readv(peer, local, 1, remote, 1, 0);
    if (got < 0)
        XFER_LOG(warn, "process_vm_readv(): %s\n", strerror(errno));
    XFER_CHECK_FATAL(got == (ssize_t)len, "short read\n"); // warning: CUR601 "XFER_CHECK_FATAL() aborts on the failure of process_vm_readv()"
    if (len == 0)
        goto done;
    return XFER_OK;
done:
    return XFER_SIZE;
}

/* `done` is also a local here: handing it to a call is no jump. */
int cma_read_counted(pid_t peer, const struct iovec *local, const struct iovec *remote, size_t len)
{
    size_t done = 0;
    ssize_t got = process_vm_readv(peer, local, 1, remote, 1, 0);
    if (got < 0)
        fprintf(stderr, "read failed after %zu bytes\n", done);
    XFER_CHECK_FATAL(got == (ssize_t)len, "short read\n"); // warning: CUR601 "XFER_CHECK_FATAL() aborts on the failure of process_vm_readv()"
    done += (size_t)got;
    if (done == 0)
        goto finished;
    return XFER_OK;
finished:
    return XFER_SIZE;
}
