/* The shared-memory channel: copies from a peer, its error codes and its fatal handler. */
#ifndef SHM_H
#define SHM_H
#include <stddef.h>
#include <sys/types.h>

#define SHM_OK 0

int shm_cma_read(pid_t peer, void *dst, const void *src, size_t n);
int xfer_pull(pid_t peer, void *dst, const void *src, size_t n);
int xfer_kept(pid_t peer, void *dst, const void *src, size_t n);
void shm_fatal(int code, const char *what);
void bounce_copy(void *dst, const void *src, size_t n);

#endif
