/* The plugin's entry points: the transport core calls them through `xport_ops`. */
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

static int plugin_flush(void *conn)
{
    struct recv_conn *rc = (struct recv_conn *)conn;
    if (!rc->ready)
        return recv_conn_flush_setup(rc);
    return 0;
}

static int plugin_signal(void *conn)
{
    struct send_conn *sc = (struct send_conn *)conn;
    return send_conn_flag_setup(sc);
}

struct send_conn *plugin_connect(struct ibv_pd *pd, int pooled)
{
    struct send_conn *sc = NULL;
    if (pooled) {
        if (xport_page_alloc((void **)&sc, sizeof(*sc)) != 0)
            return NULL;
    } else {
        /* a small heap block: shares its page with other allocations */
        sc = calloc(1, sizeof(struct send_conn));
        if (sc == NULL)
            return NULL;
    }
    sc->pd = pd;
    return sc;
}

int plugin_probe(struct ibv_pd *pd)
{
    struct probe_conn *pc = NULL;
    if (xport_page_alloc((void **)&pc, sizeof(struct probe_conn)) != 0)
        return -1;
    pc->pd = pd;
    probe_conn_setup(pc);

    /* a second one on the stack: this type is not only whole pages */
    struct probe_conn quick;
    memset(&quick, 0, sizeof(quick));
    quick.pd = pd;
    return probe_conn_setup(&quick);
}

int plugin_tmp(struct ibv_pd *pd)
{
    struct tmp_conn *tc = NULL;
    if (xport_calloc((void **)&tc, 1, sizeof(*tc)) != 0)
        return -1;
    tc->pd = pd;
    return tmp_conn_setup(tc);
}

/* made as whole pages here, but also as a global under its alias */
static ring_conn_t spare_ring;

int plugin_ring(struct ibv_pd *pd, int spare)
{
    struct ring_conn *rc = &spare_ring;
    if (!spare && xport_page_alloc((void **)&rc, sizeof(struct ring_conn)) != 0)
        return -1;
    rc->pd = pd;
    return ring_conn_setup(rc);
}

const struct xport_ops plugin_ops = {
    .name = "verbs",
    .accept = plugin_accept,
    .flush = plugin_flush,
    .signal = plugin_signal,
};
