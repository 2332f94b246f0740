#define _GNU_SOURCE
#include <assert.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>
#include "peek.h"

#define NR_POKE __NR_process_vm_writev

void snapshot_stack(pid_t pid, void *copy, const void *sp, size_t n)
{
    ssize_t got = peek_bytes(pid, copy, sp, n);
    assert(got == (ssize_t)n); // warning: CUR601@5
}

void snapshot_regs(pid_t pid, void *copy, const void *regs, size_t n)
{
    ssize_t got = peek_or_proc(pid, copy, regs, n);
    assert(got == (ssize_t)n); // ok: CUR601
}

void restore_stack(pid_t pid, const void *copy, void *sp, size_t n)
{
    struct iovec from = { (void *)copy, n }, to = { sp, n };
    if (syscall(NR_POKE, pid, &from, 1, &to, 1, 0UL) < 0)
        abort(); // warning: CUR601@9
}

void note_thread(void)
{
    long tid = syscall(SYS_gettid);
    assert(tid > 0); // ok: CUR601
}
