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

/* a probe wrapping the self-copy returns its result: its callers assert on a copy no ptrace
   restriction refuses */
static ssize_t probe_own_copy(void)
{
    char shadow[64];
    struct iovec local = { shadow, sizeof shadow };
    struct iovec remote = { scratch, sizeof scratch };
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
}

static ssize_t read_from(pid_t pid, struct iovec *local, struct iovec *remote)
{
    return process_vm_readv(pid, local, 1, remote, 1, 0);
}

void check_probe(struct iovec *local, struct iovec *remote)
{
    assert(probe_own_copy() == 64); // ok: CUR601
    assert(read_from(getppid(), local, remote) >= 0); // warning: CUR601@5
}
