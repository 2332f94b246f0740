/* The probes' contexts: made here, registered when each device comes up. */
#include <stdlib.h>
#include "conn.h"

int health_init(struct conn_base *base, struct health **out)
{
    (void)base;
    return wq_alloc((void **)out, sizeof(struct health_send));
}

int health_dev_init(struct health *h, struct ibv_pd *pd)
{
    struct health_send *send = (struct health_send *)h;
    /* `h` is always the connection's `base.health`, whole pages from wq_alloc() */
    h->mr = ibv_reg_mr(pd, &send->probes, sizeof(send->probes), IBV_ACCESS_LOCAL_WRITE); // ok: CUR302
    return h->mr ? 0 : -1;
}

void health_fini(struct health **h)
{
    if (h == NULL || *h == NULL)
        return;
    free(*h);
    *h = NULL;
}

int stats_init(struct stats **out)
{
    return heap_into((void **)out, sizeof(struct stats));
}

int stats_dev_init(struct stats *st, struct ibv_pd *pd)
{
    /* `st` is the connection's `stats`: a calloc() block, sharing its pages */
    st->mr = ibv_reg_mr(pd, &st->hist, sizeof(st->hist), IBV_ACCESS_LOCAL_WRITE); // warning: CUR302 "the member `st->hist`"
    return st->mr ? 0 : -1;
}

int trace_init(struct trace **out)
{
    return wq_alloc((void **)out, sizeof(struct trace));
}

int trace_dev_init(struct trace *t, struct ibv_pd *pd)
{
    /* the connection's `trace`, whole pages from trace_init(), but a restart hands it a
       borrowed one */
    t->mr = ibv_reg_mr(pd, &t->marks, sizeof(t->marks), IBV_ACCESS_LOCAL_WRITE); // warning: CUR302 "the member `t->marks`"
    return t->mr ? 0 : -1;
}
