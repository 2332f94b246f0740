/* The plugin's entry points (the transport core calls them through `xport_ops`) and the
 * registrations of members of its connection objects, which come back as `void *`. */
#include <stdlib.h>
#include <string.h>
#include "conn.h"

static int plugin_accept(void *listen, void **out)
{
    struct recv_conn *rc = NULL;
    if (xport_page_alloc((void **)&rc, sizeof(struct recv_conn)) != 0)
        return -1;
    rc->pd = (struct ibv_pd *)listen;
    *out = rc;
    return 0;
}

int recv_conn_flush_setup(struct recv_conn *rc)
{
    /* every recv_conn of the project is whole pages of its own (xport_page_alloc) */
    rc->flush_mr = ibv_reg_mr(rc->pd, &rc->flush_word, sizeof(int), IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
    rc->ready = rc->flush_mr != NULL;
    return rc->ready ? 0 : -1;
}

static int plugin_flush(void *conn)
{
    struct recv_conn *rc = (struct recv_conn *)conn;
    if (!rc->ready)
        return recv_conn_flush_setup(rc);
    return 0;
}

/* pooled connections are whole pages; others.c makes small ones with calloc() */
struct send_conn *plugin_connect_pooled(struct ibv_pd *pd)
{
    struct send_conn *sc = NULL;
    if (xport_page_alloc((void **)&sc, sizeof(*sc)) != 0)
        return NULL;
    sc->pd = pd;
    return sc;
}

int send_conn_flag_setup(struct send_conn *sc)
{
    sc->flag_mr = ibv_reg_mr(sc->pd, &sc->flag, sizeof(int), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return sc->flag_mr ? 0 : -1;
}

static int plugin_signal(void *conn)
{
    struct send_conn *sc = (struct send_conn *)conn;
    return send_conn_flag_setup(sc);
}

/* whole pages here; others.c keeps one on its stack */
int plugin_probe(struct ibv_pd *pd)
{
    struct probe_conn *pc = NULL;
    if (xport_page_alloc((void **)&pc, sizeof(struct probe_conn)) != 0)
        return -1;
    pc->pd = pd;
    return probe_conn_setup(pc);
}

int probe_conn_setup(struct probe_conn *pc)
{
    pc->mr = ibv_reg_mr(pc->pd, &pc->probe, sizeof(long), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return pc->mr ? 0 : -1;
}

/* a calloc() wrapper: small heap blocks */
int plugin_tmp(struct ibv_pd *pd)
{
    struct tmp_conn *tc = NULL;
    if (xport_calloc((void **)&tc, 1, sizeof(*tc)) != 0)
        return -1;
    tc->pd = pd;
    return tmp_conn_setup(tc);
}

int tmp_conn_setup(struct tmp_conn *tc)
{
    tc->mr = ibv_reg_mr(tc->pd, &tc->word, sizeof(int), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return tc->mr ? 0 : -1;
}

/* whole pages here; others.c also keeps one as a global, under its alias */
int plugin_ring(struct ibv_pd *pd)
{
    struct ring_conn *rc = NULL;
    if (xport_page_alloc((void **)&rc, sizeof(struct ring_conn)) != 0)
        return -1;
    rc->pd = pd;
    return ring_conn_setup(rc);
}

int ring_conn_setup(ring_conn_t *rc)
{
    rc->mr = ibv_reg_mr(rc->pd, &rc->head, sizeof(unsigned), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return rc->mr ? 0 : -1;
}

const struct xport_ops plugin_ops = {
    .name = "verbs",
    .accept = plugin_accept,
    .flush = plugin_flush,
    .signal = plugin_signal,
};
