/* CUR601: checks written inside branch hints (`unlikely`, `__builtin_expect`) have the truth
   of the condition they hint. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define RT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define RT_CHECK(cond) do { if (RT_UNLIKELY(!(cond))) { abort(); } } while (0)

extern int copy_through_shm(void *dst, const void *src, size_t n);

void pull_or_die(pid_t peer, struct iovec *local, struct iovec *remote)
{
    ssize_t got = process_vm_readv(peer, local, 1, remote, 1, 0);
    if (unlikely(got < 0))
        abort(); // warning: CUR601@9
}

void pull_expecting_success(pid_t peer, struct iovec *local, struct iovec *remote)
{
    ssize_t got = process_vm_readv(peer, local, 1, remote, 1, 0);
    if (__builtin_expect(got == -1, 0)) {
        perror("process_vm_readv");
        abort(); // warning: CUR601@9
    }
}

void pull_checked_by_macro(pid_t peer, struct iovec *local, struct iovec *remote)
{
    ssize_t got = process_vm_readv(peer, local, 1, remote, 1, 0);
    RT_CHECK(got >= 0); // warning: CUR601@5
}

int pull_or_fall_back(pid_t peer, struct iovec *local, struct iovec *remote)
{
    ssize_t got = process_vm_readv(peer, local, 1, remote, 1, 0);
    if (unlikely(got < 0))
        return copy_through_shm(local->iov_base, remote->iov_base, local->iov_len);
    if (likely(got == (ssize_t)local->iov_len))
        return 0;
    abort(); // ok: CUR601
}
