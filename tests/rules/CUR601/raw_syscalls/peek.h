/* Reading a traced process's memory through the raw system call: older C libraries have
 * no process_vm_readv() wrapper, so the numbers are spelled out where the headers lack them. */
#ifndef PEEK_H
#define PEEK_H
#include <stddef.h>
#include <sys/types.h>
#include <sys/syscall.h>

#ifndef SYS_process_vm_readv
#define SYS_process_vm_readv 310
#endif

ssize_t peek_bytes(pid_t pid, void *local, const void *remote, size_t n);
ssize_t peek_or_proc(pid_t pid, void *local, const void *remote, size_t n);

#endif
