#ifndef REMOTE_IO_H
#define REMOTE_IO_H
#include <stddef.h>
#include <sys/types.h>

/* Copies len bytes out of a traced process: the byte count, or -errno (kernel style). */
ssize_t remote_pull(pid_t pid, void *dst, const void *src, size_t len);
#endif
