#include <assert.h>
#include <stdlib.h>
#include "shm.h"

#define PROGRESS_ERR_COPY 41

void progress_get(pid_t peer, void *dst, const void *src, size_t n)
{
    if (xfer_pull(peer, dst, src, n) != SHM_OK)
        abort(); // warning: CUR601@9
}

void progress_get_kept(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = xfer_kept(peer, dst, src, n);
    assert(rc == SHM_OK); // warning: CUR601@5
}

/* checked and recovered: the bounce buffer takes over */
void progress_get_recovered(pid_t peer, void *dst, const void *src, size_t n)
{
    if (xfer_pull(peer, dst, src, n) != SHM_OK)
        bounce_copy(dst, src, n); // ok: CUR601
}

/* handed on once more within the file, then to the fatal handler of fatal.c */
static int stage(pid_t peer, void *dst, const void *src, size_t n)
{
    return xfer_pull(peer, dst, src, n);
}

void progress_stage(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = stage(peer, dst, src, n);
    if (rc != SHM_OK)
        shm_fatal(rc, "stage"); // warning: CUR601@9
}

/* the error-code-and-label shape: the code is stored, then the failure jumps to the exit */
static int poll_once(pid_t peer, void *dst, const void *src, size_t n)
{
    int err = SHM_OK;
    int rc = shm_cma_read(peer, dst, src, n);
    if (rc != SHM_OK) {
        err = PROGRESS_ERR_COPY;
        goto fn_fail;
    }
fn_exit:
    return err;
fn_fail:
    goto fn_exit;
}

void progress_poll(pid_t peer, void *dst, const void *src, size_t n)
{
    if (poll_once(peer, dst, src, n))
        shm_fatal(PROGRESS_ERR_COPY, "progress"); // warning: CUR601@9
}

/* the same shape, but the failure branch recovers before it jumps: nothing fails */
static int progress_bounced(pid_t peer, void *dst, const void *src, size_t n)
{
    int err = SHM_OK;
    int rc = shm_cma_read(peer, dst, src, n);
    if (rc != SHM_OK) {
        bounce_copy(dst, src, n);
        goto fn_exit;
    }
fn_exit:
    return err;
}

void progress_poll_bounced(pid_t peer, void *dst, const void *src, size_t n)
{
    if (progress_bounced(peer, dst, src, n))
        shm_fatal(PROGRESS_ERR_COPY, "progress"); // ok: CUR601
}
