#define _GNU_SOURCE
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>
#include "ring.h"

static int ring_pull(pid_t peer, void *dst, const void *src, size_t n)
{
    struct iovec local = {dst, n}, remote = {(void *)src, n};
    if (process_vm_readv(peer, &local, 1, &remote, 1, 0) != (ssize_t)n)
        return RING_ERR_CMA;
    return RING_OK;
}

/* a failed copy is reported as done (nothing new): callers cannot tell it from success */
static int ring_drain(pid_t peer, void *dst, const void *src, size_t n)
{
    struct iovec local = {dst, n}, remote = {(void *)src, n};
    if (process_vm_readv(peer, &local, 1, &remote, 1, 0) < 0) // ok: CUR601
        return RING_DONE;
    return RING_OK;
}

void ring_die(int code, const char *what)
{
    fprintf(stderr, "ring: %s failed (%d)\n", what, code);
    abort();
}

void ring_refill(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = ring_pull(peer, dst, src, n);
    if (rc == RING_ERR_CMA)
        abort(); // warning: CUR601@9
}

void ring_consume(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = ring_pull(peer, dst, src, n);
    assert(rc == RING_OK); // warning: CUR601@5
}

void ring_consume_or_die(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = ring_pull(peer, dst, src, n);
    if (rc != RING_OK)
        ring_die(rc, "consume"); // warning: CUR601@9
}

/* checked and recovered: the bounce buffer takes over */
void ring_consume_recovered(pid_t peer, void *dst, const void *src, size_t n)
{
    if (ring_pull(peer, dst, src, n) == RING_ERR_CMA)
        ring_bounce(dst, src, n); // ok: CUR601
}

/* a code that is the success value: nothing to abort on */
void ring_consume_drained(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = ring_drain(peer, dst, src, n);
    assert(rc == RING_OK); // ok: CUR601
}
