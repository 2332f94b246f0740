/* CUR601: a copy from or into the calling process itself (a self-test of the copy path, a
   probe of whether the kernel has CMA at all) passes the kernel's ptrace check whatever Yama
   says; a copy from another process does not. */
#define _GNU_SOURCE
#include <assert.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static char scratch[64];

void self_test(void)
{
    char shadow[64];
    struct iovec local = { shadow, sizeof shadow };
    struct iovec remote = { scratch, sizeof scratch };
    ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    assert(got == (ssize_t)sizeof shadow); // ok: CUR601
    got = syscall(SYS_process_vm_writev, (pid_t)getpid(), &local, 1, &remote, 1, 0);
    if (got < 0)
        abort(); // ok: CUR601
}

void pull_from_parent(struct iovec *local, struct iovec *remote)
{
    ssize_t got = process_vm_readv(getppid(), local, 1, remote, 1, 0);
    assert(got >= 0); // warning: CUR601@5
}
