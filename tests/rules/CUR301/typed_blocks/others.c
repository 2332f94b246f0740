/* The same kinds of connection, made otherwise in another part of the plugin. */
#include <stdlib.h>
#include <string.h>
#include "conn.h"

/* a small heap block: shares its page with other allocations */
struct send_conn *plugin_connect_small(struct ibv_pd *pd)
{
    struct send_conn *sc = calloc(1, sizeof(struct send_conn));
    if (sc != NULL)
        sc->pd = pd;
    return sc;
}

/* a quick probe on the stack */
int plugin_probe_quick(struct ibv_pd *pd)
{
    struct probe_conn quick;
    memset(&quick, 0, sizeof(quick));
    quick.pd = pd;
    return probe_conn_setup(&quick);
}

/* a spare ring in the data segment */
static ring_conn_t spare_ring;

int plugin_spare_ring(struct ibv_pd *pd)
{
    spare_ring.pd = pd;
    return ring_conn_setup(&spare_ring);
}
