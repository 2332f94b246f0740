/* CUR601: reading the process's own mappings without faulting on an unreadable page (a crash
   reporter's module scan). A seccomp filter refuses the call whatever process it names. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

bool read_own(void *dst, void *src, size_t len)
{
    struct iovec local = { dst, len }, remote = { src, len };
    errno = 0;
    ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0); // warning: CUR601
    bool ok = n == (ssize_t)len;
    /* EPERM in containers, EINVAL on old Android kernels: copy directly */
    if (!ok && (errno == EPERM || errno == EINVAL)) {
        memcpy(dst, src, len);
        ok = true;
    }
    return ok;
}

bool read_own_all(void *dst, void *src, size_t len)
{
    struct iovec local = { dst, len }, remote = { src, len };
    errno = 0;
    ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0); // ok: CUR601
    bool ok = n == (ssize_t)len;
    if (!ok && (errno == EPERM || errno == EINVAL || errno == ENOSYS)) {
        memcpy(dst, src, len);
        ok = true;
    }
    return ok;
}

/* any failure falls back: no errno test */
bool read_own_any(void *dst, void *src, size_t len)
{
    struct iovec local = { dst, len }, remote = { src, len };
    ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0); // ok: CUR601
    if (n != (ssize_t)len) {
        memcpy(dst, src, len);
    }
    return true;
}

/* the restriction values are named and returned on purpose */
int read_own_strict(void *dst, void *src, size_t len)
{
    struct iovec local = { dst, len }, remote = { src, len };
    ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0); // ok: CUR601
    if (n < 0) {
        if (errno == EFAULT) {
            memcpy(dst, src, len);
            return 0;
        } else if (errno == EPERM || errno == ENOSYS) {
            return -errno;
        }
        return -EIO;
    }
    return 0;
}

/* writing into a peer: /proc/PID/mem when the kernel lacks CMA, not when it is refused */
int poke_peer(pid_t pid, int mem_fd, void *src, void *remote_addr, size_t len)
{
    struct iovec local = { src, len }, remote = { remote_addr, len };
    long n = syscall(SYS_process_vm_writev, pid, &local, 1, &remote, 1, 0); // warning: CUR601
    if (n < 0) {
        if (errno == ENOSYS) {
            if (pwrite(mem_fd, src, len, (off_t)(uintptr_t)remote_addr) != (ssize_t)len)
                return -1;
            return 0;
        }
        return -1;
    }
    return 0;
}

/* two copies: the errno test after the second is not the first one's */
bool read_pair(void *dst, void *src, void *dst2, void *src2, size_t len)
{
    struct iovec l1 = { dst, len }, r1 = { src, len }, l2 = { dst2, len }, r2 = { src2, len };
    ssize_t n = process_vm_readv(getpid(), &l1, 1, &r1, 1, 0); // ok: CUR601
    if (n != (ssize_t)len)
        return false;
    n = process_vm_readv(getpid(), &l2, 1, &r2, 1, 0); // warning: CUR601
    if (n < 0 && errno == EINVAL) {
        memcpy(dst2, src2, len);
        return true;
    }
    return n == (ssize_t)len;
}

static char last_error[64];

static void note_error(const char *what)
{
    memcpy(last_error, what, strlen(what) < sizeof last_error ? strlen(what) : 0);
}

/* only a note of the error, whatever helper writes it: no other path to recover on */
int read_own_noted(void *dst, void *src, size_t len)
{
    struct iovec local = { dst, len }, remote = { src, len };
    ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0); // ok: CUR601
    if (n < 0 && errno == EFAULT)
        note_error("bad address");
    return n == (ssize_t)len ? 0 : -1;
}
