/* Endpoints register words of their own control blocks. */
#include <stdint.h>
#include <stdlib.h>
#include <infiniband/verbs.h>
#include "pool.h"

struct endpoint {
    struct ibv_pd *pd;
    uint64_t flush_word;
    uint32_t credits[8];
    struct ibv_mr *flush_mr;
    struct ibv_mr *credits_mr;
};

/* the control block is whole pages of its own: its words share pages only with each other */
struct endpoint *endpoint_open(struct ibv_pd *pd)
{
    struct endpoint *ep;
    if (pool_alloc((void **)&ep, sizeof(struct endpoint)) != 0)
        return NULL;
    ep->pd = pd;
    ep->flush_mr = ibv_reg_mr(pd, &ep->flush_word, sizeof(ep->flush_word), IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
    ep->credits_mr = ibv_reg_mr(pd, ep->credits, sizeof(ep->credits), IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
    return ep;
}

struct endpoint *endpoint_open_taken(struct ibv_pd *pd)
{
    struct endpoint *ep = pool_take(sizeof(*ep));
    if (ep == NULL)
        return NULL;
    ep->flush_mr = ibv_reg_mr(pd, &ep->flush_word, sizeof(ep->flush_word), IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
    return ep;
}

struct endpoint *endpoint_open_aligned(struct ibv_pd *pd)
{
    struct endpoint *ep;
    if (pool_alloc_aligned((void **)&ep, sizeof(struct endpoint)) != 0)
        return NULL;
    ep->flush_mr = ibv_reg_mr(pd, &ep->flush_word, sizeof(ep->flush_word), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return ep;
}

struct endpoint *endpoint_open_at_least(struct ibv_pd *pd)
{
    struct endpoint *ep;
    if (pool_alloc_at_least((void **)&ep, sizeof(struct endpoint)) != 0)
        return NULL;
    ep->flush_mr = ibv_reg_mr(pd, &ep->flush_word, sizeof(ep->flush_word), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return ep;
}

struct endpoint *endpoint_open_heap(struct ibv_pd *pd)
{
    struct endpoint *ep = calloc(1, sizeof(*ep));
    if (ep == NULL)
        return NULL;
    ep->flush_mr = ibv_reg_mr(pd, &ep->flush_word, sizeof(ep->flush_word), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return ep;
}

/* a block of the pool holds a pointer to another object: that one's pages are not the pool's */
struct holder { struct endpoint *peer; };

int holder_register(struct ibv_pd *pd, struct ibv_mr **mr)
{
    struct holder *h;
    if (pool_alloc((void **)&h, sizeof(*h)) != 0)
        return -1;
    h->peer = calloc(1, sizeof(struct endpoint));
    *mr = ibv_reg_mr(pd, &h->peer->flush_word, sizeof(uint64_t), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return *mr ? 0 : -1;
}

/* A state machine: the first call allocates the endpoint from the pool, a later one reads it
 * back from the stage it was stored in. The stage's field may hold other memory as far as this
 * file shows, but nothing shows that it does: the rule cannot know, and stays silent. */
struct stage { void *ep; int state; };

int endpoint_step(struct stage *stage, struct ibv_pd *pd)
{
    struct endpoint *ep = (struct endpoint *)stage->ep;
    if (stage->state == 1)
        goto registered;
    if (pool_alloc((void **)&ep, sizeof(struct endpoint)) != 0)
        return -1;
    stage->ep = ep;
    stage->state = 1;
registered:
    ep->credits_mr = ibv_reg_mr(pd, ep->credits, sizeof(ep->credits), IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
    return ep->credits_mr ? 0 : -1;
}

int endpoint_step_heap(struct stage *stage, struct ibv_pd *pd)
{
    struct endpoint *ep = (struct endpoint *)stage->ep;
    if (ep == NULL) {
        ep = calloc(1, sizeof(*ep));
        stage->ep = ep;
    }
    ep->credits_mr = ibv_reg_mr(pd, ep->credits, sizeof(ep->credits), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return ep->credits_mr ? 0 : -1;
}

/* one path takes whole pages, the other a small heap block: that one shares its pages */
int endpoint_step_mixed(struct stage *stage, struct ibv_pd *pd, int pooled)
{
    struct endpoint *ep = (struct endpoint *)stage->ep;
    if (ep == NULL && pooled)
        ep = pool_take(sizeof(*ep));
    else if (ep == NULL)
        ep = malloc(sizeof(*ep));
    ep->credits_mr = ibv_reg_mr(pd, ep->credits, sizeof(ep->credits), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return ep->credits_mr ? 0 : -1;
}
