#ifndef VM_READ_H
#define VM_READ_H
#include <stddef.h>
#include <sys/types.h>

/* process_vm_readv of one range: its result unchanged (-1 and errno on failure) */
ssize_t vm_read(pid_t pid, void *dst, const void *src, size_t len);
#endif
