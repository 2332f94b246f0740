/* A ring-buffer log whose readers are called back as records arrive. */
#ifndef RINGLOG_H
#define RINGLOG_H

#include <stddef.h>

typedef struct rl_queue rl_queue;
typedef int (*rl_dispatch_f)(void *ctx, long index, const char *record);
typedef double (*rl_combine_f)(double acc, double value);
typedef void (*rl_rotate_f)(int cycle);
typedef void (*rl_event_f)(int kind, const char *detail);

void *rl_tail(rl_queue *q, rl_dispatch_f dispatch, void *ctx);
double rl_reduce(const double *values, size_t count, rl_combine_f combine);
int rl_on_rotate(rl_rotate_f hook);
int rl_watch(rl_event_f on_event);
int rl_drain(rl_queue *q, rl_dispatch_f dispatch);

#endif
