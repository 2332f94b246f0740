/* A connection's control block registers its ring of credits for the peer to write. */
#include <stdlib.h>
#include <infiniband/verbs.h>
#include "arena.h"

struct conn {
    struct ibv_mr *credits_mr;
    unsigned credits[64];
};
struct stage { void *conn; int state; };

int conn_open(struct ibv_pd *pd, size_t len)
{
    struct conn *c = arena_pages(sizeof(struct conn));
    if (c == NULL)
        return -1;
    c->credits_mr = ibv_reg_mr(pd, c->credits, len, IBV_ACCESS_REMOTE_WRITE); // ok: CUR302
    return c->credits_mr ? 0 : -1;
}

/* called again until connected: the block is allocated once and read back from the stage */
int conn_step(struct stage *stage, struct ibv_pd *pd, size_t len)
{
    struct conn *c = (struct conn *)stage->conn;
    if (stage->state == 1)
        goto connected;
    c = arena_pages(sizeof(struct conn));
    if (c == NULL)
        return -1;
    stage->conn = c;
    stage->state = 1;
connected:
    c->credits_mr = ibv_reg_mr(pd, c->credits, len, IBV_ACCESS_REMOTE_WRITE); // ok: CUR302
    return c->credits_mr ? 0 : -1;
}

int conn_step_heap(struct stage *stage, struct ibv_pd *pd, size_t len)
{
    struct conn *c = (struct conn *)stage->conn;
    if (c == NULL) {
        c = calloc(1, sizeof(*c));
        stage->conn = c;
    }
    c->credits_mr = ibv_reg_mr(pd, c->credits, len, IBV_ACCESS_REMOTE_WRITE); // warning: CUR302
    return c->credits_mr ? 0 : -1;
}

int conn_open_heap(struct ibv_pd *pd, size_t len)
{
    struct conn *c = malloc(sizeof(struct conn));
    if (c == NULL)
        return -1;
    c->credits_mr = ibv_reg_mr(pd, c->credits, len, IBV_ACCESS_REMOTE_WRITE); // warning: CUR302
    return c->credits_mr ? 0 : -1;
}
