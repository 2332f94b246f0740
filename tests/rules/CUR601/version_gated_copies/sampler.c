/* CUR601: a sampler that picks its copy by the kernel's release, once per snapshot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "mem_copy.h"

extern int opt_use_procmem;
extern int opt_use_cma;

static int kernel_release(int *major, int *minor)
{
    struct utsname name;
    if (uname(&name) < 0)
        return -1;
    char *dot = strchr(name.release, '.');
    if (dot == NULL)
        return -1;
    *major = atoi(name.release);
    *minor = atoi(dot + 1);
    return 0;
}

int take_snapshot(pid_t pid, struct chunk *chunks, int count)
{
    int major, minor, rc;
    int use_cma = 0;

    if (!opt_use_procmem) {
        if (kernel_release(&major, &minor) < 0)
            return -1;
        if (major > 3 || (major == 3 && minor >= 2))
            use_cma = 1;
    } else {
        use_cma = 0;
    }

    rc = use_cma ? copy_chunks_cma(pid, chunks, count) : copy_chunks_procmem(pid, chunks, count);
    if (rc < 0)
        fprintf(stderr, "snapshot of %d failed\n", (int)pid);
    return rc;
}

int patch_memory(pid_t pid, struct chunk *chunks, int count)
{
    int major = 0, minor = 0;
    kernel_release(&major, &minor);
    if (major >= 4) {
        return write_chunks_cma(pid, chunks, count);
    } else {
        return write_chunks_ptrace(pid, chunks, count);
    }
}

/* the other copy is tried again when the chosen one fails: clean */
int peek_memory(pid_t pid, struct chunk *chunks, int count)
{
    int major = 0, minor = 0;
    kernel_release(&major, &minor);
    int rc = major >= 4 ? peek_cma(pid, chunks, count) : peek_procmem(pid, chunks, count);
    if (rc < 0 && major >= 4)
        rc = peek_procmem(pid, chunks, count);
    return rc;
}

/* the chosen copy falls back itself: clean */
int poke_memory(pid_t pid, struct chunk *chunks, int count)
{
    int major = 0, minor = 0;
    kernel_release(&major, &minor);
    return major >= 4 ? poke_cma(pid, chunks, count) : poke_ptrace(pid, chunks, count);
}

/* chosen by the user's option, not by the kernel: clean */
int dump_memory(pid_t pid, struct chunk *chunks, int count)
{
    int major = 0, minor = 0;
    kernel_release(&major, &minor);
    printf("kernel %d.%d\n", major, minor);
    return opt_use_cma ? dump_cma(pid, chunks, count) : dump_procmem(pid, chunks, count);
}

int fast_cma(pid_t pid, struct chunk *chunks, int count);
int plain_cma(pid_t pid, struct chunk *chunks, int count);

/* both branches copy with CMA: the version picks a variant, not the copy: clean */
int read_variant(pid_t pid, struct chunk *chunks, int count)
{
    int major = 0, minor = 0;
    kernel_release(&major, &minor);
    return major >= 5 ? fast_cma(pid, chunks, count) : plain_cma(pid, chunks, count);
}

int arch_cma(pid_t pid, struct chunk *chunks, int count);
int arch_procmem(pid_t pid, struct chunk *chunks, int count);
int release_cma(pid_t pid, struct chunk *chunks, int count);

/* chosen by the machine's architecture (uname's machine, not its release): clean */
int read_by_machine(pid_t pid, struct chunk *chunks, int count)
{
    struct utsname name;
    if (uname(&name) < 0)
        return -1;
    return strcmp(name.machine, "x86_64") == 0 ? arch_cma(pid, chunks, count)
                                               : arch_procmem(pid, chunks, count);
}

/* uname's release read in place: reported at release_cma's copy (mem_copy.c) */
int read_by_release(pid_t pid, struct chunk *chunks, int count)
{
    struct utsname name;
    if (uname(&name) < 0)
        return -1;
    return atoi(name.release) >= 4 ? release_cma(pid, chunks, count)
                                   : arch_procmem(pid, chunks, count);
}
