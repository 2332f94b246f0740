#ifndef SMSC_H
#define SMSC_H
#include <stddef.h>
#include <sys/types.h>

int cma_pull(pid_t peer, void *dst, const void *src, size_t n);
int smsc_copy_from(pid_t peer, void *dst, const void *src, size_t n);
int smsc_copy_or_bounce(pid_t peer, void *dst, const void *src, size_t n);
int btl_get_status(pid_t peer, void *dst, const void *src, size_t n);
int pml_get_status(pid_t peer, void *dst, const void *src, size_t n);
int bounce_copy(void *dst, const void *src, size_t n);
#endif
