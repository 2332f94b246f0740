#ifndef CMA_IO_H
#define CMA_IO_H
#include <sys/types.h>

/* 0, or -errno when the kernel refused the copy */
int cma_io_read(pid_t peer, void *dst, const void *src, size_t n);
int cma_io_pull(pid_t peer, void *dst, const void *src, size_t n);
int copy_through_shm(void *dst, const void *src, size_t n);
#endif
