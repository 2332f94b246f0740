#ifndef XFER_CMA_H
#define XFER_CMA_H
#include <sys/types.h>

int cma_get(pid_t peer, void *dst, const void *src, size_t n);
int transport_pull(pid_t peer, void *dst, const void *src, size_t n);
int bounce_read(void *dst, const void *src, size_t n);
#endif
