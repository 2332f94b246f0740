#define _GNU_SOURCE
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "arch_compat.h"

/* returns the system call's result: -1 when the copy is refused */
static long remote_peek(pid_t pid, void *local, const void *remote, size_t n)
{
    struct iovec to = { local, n }, from = { (void *)remote, n };
    return syscall(NR_PEEK, pid, &to, 1, &from, 1, 0UL);
}

void read_frame(pid_t pid, void *frame, const void *fp, size_t n)
{
    long got = remote_peek(pid, frame, fp, n);
    assert(got == (long)n); // warning: CUR601@5
}

void write_breakpoint(pid_t pid, void *trap, void *at, size_t n)
{
    struct iovec from = { trap, n }, to = { at, n };
    if (syscall(NR_POKE, pid, &from, 1, &to, 1, 0UL) < 0)
        abort(); // warning: CUR601@9
}

/* a refused read leaves the frame unknown: the caller stops unwinding */
int read_frame_or_stop(pid_t pid, void *frame, const void *fp, size_t n)
{
    struct iovec to = { frame, n }, from = { (void *)fp, n };
    long got = syscall(NR_PEEK, pid, &to, 1, &from, 1, 0UL);
    if (got != (long)n) {
        memset(frame, 0, n);
        return -1;
    }
    assert(got == (long)n); // ok: CUR601
    return 0;
}

void check_thread(long expected)
{
    long tid = syscall(NR_THREAD_ID);
    assert(tid == expected); // ok: CUR601
}
