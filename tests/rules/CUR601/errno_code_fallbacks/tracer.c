/* CUR601: a tracer reading its tracee's memory; the copy's wrapper (remote_io.c) returns
   -errno, and these callers pick a fallback by comparing the code with -E... constants. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include "remote_io.h"

/* one word at a time through the attached tracee: slow, but allowed once attached */
static ssize_t peek_words(pid_t pid, void *dst, const void *src, size_t len)
{
    size_t done = 0;
    while (done < len) {
        errno = 0;
        long word = ptrace(PTRACE_PEEKDATA, pid, (char *)src + done, NULL);
        if (word == -1 && errno)
            return -errno;
        size_t chunk = len - done < sizeof(word) ? len - done : sizeof(word);
        memcpy((char *)dst + done, &word, chunk);
        done += chunk;
    }
    return (ssize_t)done;
}

/* only a kernel without CMA falls back: a Yama refusal (EPERM) fails the read */
ssize_t read_tracee(pid_t pid, void *dst, const void *src, size_t len)
{
    ssize_t ret = remote_pull(pid, dst, src, len); // warning: CUR601
    if (ret == -ENOSYS)
        return peek_words(pid, dst, src, len);
    return ret;
}

ssize_t read_tracee_switch(pid_t pid, void *dst, const void *src, size_t len)
{
    ssize_t ret = remote_pull(pid, dst, src, len); // warning: CUR601
    switch (ret) {
    case -ENOSYS:
    case -EFAULT:
        return peek_words(pid, dst, src, len);
    default:
        break;
    }
    return ret;
}

/* both restriction values take the ptrace path */
ssize_t read_tracee_restricted(pid_t pid, void *dst, const void *src, size_t len)
{
    ssize_t ret = remote_pull(pid, dst, src, len); // ok: CUR601
    if (ret == -ENOSYS || ret == -EPERM)
        return peek_words(pid, dst, src, len);
    return ret;
}

/* any failure takes it */
ssize_t read_tracee_any(pid_t pid, void *dst, const void *src, size_t len)
{
    ssize_t ret = remote_pull(pid, dst, src, len); // ok: CUR601
    if (ret < 0)
        return peek_words(pid, dst, src, len);
    return ret;
}

/* EPERM named and failed on purpose: the caller wants to know it was refused */
ssize_t read_tracee_strict(pid_t pid, void *dst, const void *src, size_t len)
{
    ssize_t ret = remote_pull(pid, dst, src, len); // ok: CUR601
    if (ret == -ENOSYS)
        return peek_words(pid, dst, src, len);
    else if (ret == -EPERM)
        return -EACCES;
    return ret;
}

/* no fallback at all: a debugger command reporting the error to its user */
ssize_t read_tracee_plain(pid_t pid, void *dst, const void *src, size_t len)
{
    ssize_t ret = remote_pull(pid, dst, src, len); // ok: CUR601
    if (ret == -EFAULT)
        return -EIO;
    return ret;
}

int resume_tracee(pid_t pid);

/* the code tested is another call's: the copy's failure was already returned */
ssize_t read_then_resume(pid_t pid, void *dst, const void *src, size_t len)
{
    ssize_t ret = remote_pull(pid, dst, src, len); // ok: CUR601
    if (ret < 0)
        return ret;
    ret = resume_tracee(pid);
    if (ret == -ENOSYS)
        return peek_words(pid, dst, src, len);
    return ret;
}
