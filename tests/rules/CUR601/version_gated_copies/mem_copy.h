#ifndef MEM_COPY_H
#define MEM_COPY_H
#include <stddef.h>
#include <sys/types.h>

struct chunk {
    void *local;
    void *remote;
    size_t len;
};

int copy_chunks_cma(pid_t pid, struct chunk *chunks, int count);
int copy_chunks_procmem(pid_t pid, struct chunk *chunks, int count);
int write_chunks_cma(pid_t pid, struct chunk *chunks, int count);
int write_chunks_ptrace(pid_t pid, struct chunk *chunks, int count);
int peek_cma(pid_t pid, struct chunk *chunks, int count);
int peek_procmem(pid_t pid, struct chunk *chunks, int count);
int poke_cma(pid_t pid, struct chunk *chunks, int count);
int poke_ptrace(pid_t pid, struct chunk *chunks, int count);
int dump_cma(pid_t pid, struct chunk *chunks, int count);
int dump_procmem(pid_t pid, struct chunk *chunks, int count);

#endif
