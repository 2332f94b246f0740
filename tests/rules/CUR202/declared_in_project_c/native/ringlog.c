#include <stdlib.h>
#include "ringlog.h"

#define MAX_HOOKS 8

struct rl_tailer {
    rl_queue *queue;
    rl_dispatch_f dispatch;
    void *ctx;
    long index;
};

struct rl_visit {
    rl_dispatch_f dispatch;
    long seen;
};

static rl_rotate_f rotate_hooks[MAX_HOOKS];
static int n_hooks;
static rl_event_f watcher;

/* The tailer keeps the dispatcher: rl_poll() calls it for every record appended later. */
void *rl_tail(rl_queue *q, rl_dispatch_f dispatch, void *ctx) {
    struct rl_tailer *tailer = calloc(1, sizeof *tailer);
    if (tailer == NULL)
        return NULL;
    tailer->queue = q;
    tailer->dispatch = dispatch;
    tailer->ctx = ctx;
    return tailer;
}

/* Calls the combiner for each value and forgets it before returning. */
double rl_reduce(const double *values, size_t count, rl_combine_f combine) {
    double acc = 0.0;
    for (size_t i = 0; i < count; i++)
        acc = combine(acc, values[i]);
    return acc;
}

int rl_on_rotate(rl_rotate_f hook) {
    if (n_hooks == MAX_HOOKS)
        return -1;
    rotate_hooks[n_hooks++] = hook;
    return 0;
}

static int install_watch(rl_event_f on_event, int replace) {
    if (watcher != NULL && !replace)
        return -1;
    watcher = on_event;
    return 0;
}

int rl_watch(rl_event_f on_event) {
    return install_watch(on_event, 0);
}

static long visit_all(rl_queue *q, struct rl_visit *visit) {
    (void)q;
    return visit->seen;
}

/* The visitor lives on this function's stack: the dispatcher is used only until it returns. */
int rl_drain(rl_queue *q, rl_dispatch_f dispatch) {
    struct rl_visit visit;
    visit.dispatch = dispatch;
    visit.seen = 0;
    return (int)visit_all(q, &visit);
}
