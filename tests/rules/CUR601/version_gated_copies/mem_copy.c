/* CUR601: the copies of a stack sampler. Which one runs is decided in sampler.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <unistd.h>
#include "mem_copy.h"

static int read_one(int fd, struct chunk *c)
{
    return pread(fd, c->local, c->len, (off_t)(size_t)c->remote) == (ssize_t)c->len ? 0 : -1;
}

/* chosen by the kernel's version (sampler.c): a kernel configured without CMA, or a seccomp
   filter, fails every snapshot although /proc/PID/mem would have served */
int copy_chunks_cma(pid_t pid, struct chunk *chunks, int count)
{
    for (int i = 0; i < count; i++) {
        struct iovec local = { chunks[i].local, chunks[i].len };
        struct iovec remote = { chunks[i].remote, chunks[i].len };
        ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0); // warning: CUR601 "chosen by the kernel's version"
        if (n != (ssize_t)chunks[i].len) {
            perror("process_vm_readv");
            return -1;
        }
    }
    return 0;
}

int copy_chunks_procmem(pid_t pid, struct chunk *chunks, int count)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    int rc = 0;
    for (int i = 0; i < count && rc == 0; i++)
        rc = read_one(fd, &chunks[i]);
    close(fd);
    return rc;
}

/* chosen by the kernel's version with if/else (sampler.c) */
int write_chunks_cma(pid_t pid, struct chunk *chunks, int count)
{
    struct iovec local = { chunks[0].local, chunks[0].len };
    struct iovec remote = { chunks[0].remote, chunks[0].len };
    ssize_t n = process_vm_writev(pid, &local, 1, &remote, 1, 0); // warning: CUR601 "over write_chunks_ptrace()"
    if (n < 0)
        return -1;
    return count > 1 ? write_chunks_cma(pid, chunks + 1, count - 1) : 0;
}

int write_chunks_ptrace(pid_t pid, struct chunk *chunks, int count)
{
    for (int i = 0; i < count; i++) {
        long word = *(long *)chunks[i].local;
        if (ptrace(PTRACE_POKEDATA, pid, chunks[i].remote, (void *)word) == -1)
            return -1;
    }
    return 0;
}

/* chosen by the kernel's version, but the caller tries /proc/PID/mem again when it fails */
int peek_cma(pid_t pid, struct chunk *chunks, int count)
{
    struct iovec local = { chunks[0].local, chunks[0].len };
    struct iovec remote = { chunks[0].remote, chunks[0].len };
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0); // ok: CUR601
    return n == (ssize_t)chunks[0].len && count == 1 ? 0 : -1;
}

int peek_procmem(pid_t pid, struct chunk *chunks, int count)
{
    return copy_chunks_procmem(pid, chunks, count);
}

/* chosen by the kernel's version, and falling back itself on every refusal */
int poke_cma(pid_t pid, struct chunk *chunks, int count)
{
    struct iovec local = { chunks[0].local, chunks[0].len };
    struct iovec remote = { chunks[0].remote, chunks[0].len };
    ssize_t n = process_vm_writev(pid, &local, 1, &remote, 1, 0); // ok: CUR601
    if (n < 0 && (errno == ENOSYS || errno == EPERM))
        return write_chunks_ptrace(pid, chunks, count);
    return n < 0 ? -1 : 0;
}

int poke_ptrace(pid_t pid, struct chunk *chunks, int count)
{
    return write_chunks_ptrace(pid, chunks, count);
}

/* chosen by the user's option only (sampler.c): the user asked for CMA */
int dump_cma(pid_t pid, struct chunk *chunks, int count)
{
    struct iovec local = { chunks[0].local, chunks[0].len };
    struct iovec remote = { chunks[0].remote, chunks[0].len };
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0); // ok: CUR601
    if (n < 0)
        return -1;
    return count;
}

int dump_procmem(pid_t pid, struct chunk *chunks, int count)
{
    return copy_chunks_procmem(pid, chunks, count);
}

/* two copies chosen by the version (a newer flag on newer kernels): no copy of another kind */
int fast_cma(pid_t pid, struct chunk *chunks, int count)
{
    struct iovec local = { chunks[0].local, chunks[0].len };
    struct iovec remote = { chunks[0].remote, chunks[0].len };
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0); // ok: CUR601
    return n < 0 ? -1 : count;
}

int plain_cma(pid_t pid, struct chunk *chunks, int count)
{
    struct iovec local = { chunks[0].local, chunks[0].len };
    struct iovec remote = { chunks[0].remote, chunks[0].len };
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0); // ok: CUR601
    return n < 0 ? -1 : count;
}

/* chosen by the machine's architecture (sampler.c): clean */
int arch_cma(pid_t pid, struct chunk *chunks, int count)
{
    struct iovec local = { chunks[0].local, chunks[0].len };
    struct iovec remote = { chunks[0].remote, chunks[0].len };
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0); // ok: CUR601
    return n < 0 ? -1 : count;
}

int arch_procmem(pid_t pid, struct chunk *chunks, int count)
{
    return copy_chunks_procmem(pid, chunks, count);
}

/* chosen by uname's release read in place (sampler.c) */
int release_cma(pid_t pid, struct chunk *chunks, int count)
{
    struct iovec local = { chunks[0].local, chunks[0].len };
    struct iovec remote = { chunks[0].remote, chunks[0].len };
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0); // warning: CUR601 "over arch_procmem()"
    return n < 0 ? -1 : count;
}
