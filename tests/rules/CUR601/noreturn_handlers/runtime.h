#ifndef RUNTIME_H
#define RUNTIME_H
#include <stddef.h>
#include <sys/types.h>

/* the runtime's spelling of "never returns", per compiler */
#if defined __cplusplus
#define RT_NORETURN [[noreturn]]
#elif defined __GNUC__
#define RT_NORETURN __attribute__((__noreturn__))
#else
#define RT_NORETURN _Noreturn
#endif

/* ends the run: one definition per build (rt_core.c, standalone.c) */
RT_NORETURN
#if defined __GNUC__
__attribute__((format(printf, 1, 2)))
#endif
void rt_abort(const char *fmt, ...);

/* the transport layer's end: one definition per layer (layer_tcp.c, layer_shm.c) */
RT_NORETURN void rt_layer_abort(const char *why);

/* logs and returns */
void rt_warn(const char *fmt, ...);

int shm_copy(void *dst, const void *src, size_t n);
int cma_read(pid_t pid, char *local, char *remote, size_t n);
int cma_write(pid_t pid, char *local, char *remote, size_t n);
int cma_read_or_copy(pid_t pid, char *local, char *remote, size_t n);
#endif
