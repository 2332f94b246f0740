/* CUR601: a debugger reading a stopped tracee. One read at once through CMA, else word by word
   with PTRACE_PEEKDATA (the tracer may peek whatever Yama says of the ptrace access check). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include "vm_read.h"

static bool use_cma = true;

static bool peek_words(pid_t pid, unsigned char *dst, const unsigned char *src, size_t len)
{
    while (len > 0) {
        long word;
        size_t n = len < sizeof word ? len : sizeof word;
        errno = 0;
        word = ptrace(PTRACE_PEEKDATA, pid, (void *)src, NULL);
        if (errno)
            return false;
        memcpy(dst, &word, n);
        dst += n;
        src += n;
        len -= n;
    }
    return true;
}

/* EFAULT and ENOSYS go on to ptrace; EPERM (Yama ptrace_scope=1 once the tracee was
   re-parented) returns false */
bool tracee_read(pid_t pid, void *dst, const void *src, size_t len)
{
    if (use_cma) {
        ssize_t got = vm_read(pid, dst, src, len); // warning: CUR601
        if (got == -1) {
            if (errno == ENOSYS) {
                use_cma = false;
            } else if (errno == EFAULT) {
                /* maybe a page ptrace may still peek */
            } else {
                return false;
            }
        } else {
            return (size_t)got == len;
        }
    }
    return peek_words(pid, dst, src, len);
}

/* every restriction errno goes on to ptrace */
bool tracee_read_all(pid_t pid, void *dst, const void *src, size_t len)
{
    if (use_cma) {
        ssize_t got = vm_read(pid, dst, src, len); // ok: CUR601
        if (got == -1) {
            if (errno == ENOSYS) {
                use_cma = false;
            } else if (errno == EFAULT || errno == EPERM) {
                /* ptrace may still peek */
            } else {
                return false;
            }
        } else {
            return (size_t)got == len;
        }
    }
    return peek_words(pid, dst, src, len);
}

/* a tool that only tells its user why the read failed: no other path to recover on */
int dump_range(pid_t pid, void *dst, const void *src, size_t len)
{
    ssize_t got = vm_read(pid, dst, src, len); // ok: CUR601
    if (got < 0) {
        if (errno == EPERM)
            fprintf(stderr, "not permitted: see /proc/sys/kernel/yama/ptrace_scope\n");
        else if (errno == ENOSYS)
            fprintf(stderr, "this kernel has no process_vm_readv\n");
        return -1;
    }
    return 0;
}

/* the same fallback written the other way round: EPERM is not let through */
bool tracee_peek(pid_t pid, void *dst, const void *src, size_t len)
{
    ssize_t got = vm_read(pid, dst, src, len); // warning: CUR601
    if (got == (ssize_t)len)
        return true;
    if (got < 0 && errno != EFAULT && errno != ENOSYS)
        return false;
    return peek_words(pid, dst, src, len);
}

/* ... and with every restriction errno let through */
bool tracee_peek_all(pid_t pid, void *dst, const void *src, size_t len)
{
    ssize_t got = vm_read(pid, dst, src, len); // ok: CUR601
    if (got == (ssize_t)len)
        return true;
    if (got < 0 && errno != EFAULT && errno != ENOSYS && errno != EPERM)
        return false;
    return peek_words(pid, dst, src, len);
}

/* an empty else: the values no branch names go on as after the chain */
bool tracee_read_empty_else(pid_t pid, void *dst, const void *src, size_t len)
{
    ssize_t got = vm_read(pid, dst, src, len); // warning: CUR601
    if (got < 0) {
        if (errno == EFAULT || errno == ENOSYS) {
            return peek_words(pid, dst, src, len);
        } else {
        }
        return false;
    }
    return (size_t)got == len;
}
