/* A wrapper of host calls whose field is also named `fn`, of another struct type: its
   functions come from callers in other files and take one argument, so a call through it
   passing one is never one of the copies the CMA table's `fn` holds (six arguments). */
#include <stdlib.h>

struct host_call {
    void (*fn)(void *);
    void *arg;
};

static void run_host_call(void *data)
{
    struct host_call *p = data;
    p->fn(p->arg); // ok: CUR601 (one argument)
    free(p);
}

int launch_host_call(void (*fn)(void *), void *arg, int (*enqueue)(void (*)(void *), void *))
{
    struct host_call *p = malloc(sizeof(*p));
    p->fn = fn;
    p->arg = arg;
    return enqueue(run_host_call, p);
}
