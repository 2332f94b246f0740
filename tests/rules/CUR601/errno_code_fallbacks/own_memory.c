/* CUR601: reading the process's own memory without faulting (a profiler's safe read), with the
   fallback chosen through a flag the errno test sets. A seccomp filter refuses the call
   whatever process it names. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

bool range_readable(const void *address, size_t len);

bool safe_read(void *dst, const void *src, size_t len)
{
    static bool cma_usable = true;
    bool pending = true;
    bool ok = false;

    if (cma_usable) {
        struct iovec local = { dst, len }, remote = { (void *)src, len };
        ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0); // warning: CUR601
        if (n == (ssize_t)len)
            ok = true;
        if (n == -1 && errno == ENOSYS)
            cma_usable = false;
        else
            pending = false;
    }
    if (pending && range_readable(src, len)) {
        memcpy(dst, src, len);
        ok = true;
    }
    return ok;
}

bool safe_read_restricted(void *dst, const void *src, size_t len)
{
    bool pending = true;
    bool ok = false;
    struct iovec local = { dst, len }, remote = { (void *)src, len };
    ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0); // ok: CUR601

    if (n == (ssize_t)len)
        ok = true;
    if (n == -1 && (errno == ENOSYS || errno == EPERM))
        pending = true;
    else
        pending = false;
    if (pending) {
        memcpy(dst, src, len);
        ok = true;
    }
    return ok;
}

/* the flag is set in both branches alike: every failure reaches the copy */
bool safe_read_any(void *dst, const void *src, size_t len)
{
    int fallback = 0;
    struct iovec local = { dst, len }, remote = { (void *)src, len };
    ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0); // ok: CUR601

    if (n == -1 && errno == ENOSYS)
        fallback = 1;
    else if (n != (ssize_t)len)
        fallback = 1;
    if (fallback)
        memcpy(dst, src, len);
    return true;
}

/* the flag says "fall back", set only where the kernel lacks the call */
bool safe_read_fallback(void *dst, const void *src, size_t len)
{
    bool fallback = false;
    struct iovec local = { dst, len }, remote = { (void *)src, len };
    ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0); // warning: CUR601

    if (n < 0 && errno == ENOSYS)
        fallback = true;
    if (fallback) {
        memcpy(dst, src, len);
        return true;
    }
    return n == (ssize_t)len;
}

bool fallback_forced;

/* the same flag also set from elsewhere before the copy: its value at the test is not known */
bool safe_read_forced(void *dst, const void *src, size_t len)
{
    bool fallback = false;
    struct iovec local = { dst, len }, remote = { (void *)src, len };

    if (fallback_forced)
        fallback = true;
    ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0); // ok: CUR601
    if (n < 0 && errno == ENOSYS)
        fallback = true;
    if (fallback) {
        memcpy(dst, src, len);
        return true;
    }
    return n == (ssize_t)len;
}

/* a flag kept across calls (static): its value at the test is not known either */
bool safe_read_sticky(void *dst, const void *src, size_t len)
{
    static bool fallback = false;
    struct iovec local = { dst, len }, remote = { (void *)src, len };
    ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0); // ok: CUR601

    if (n < 0 && errno == ENOSYS)
        fallback = true;
    if (fallback) {
        memcpy(dst, src, len);
        return true;
    }
    return n == (ssize_t)len;
}
