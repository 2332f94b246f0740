/* Bringing a connection up: its contexts first, then each device. */
#include "conn.h"

int conn_setup(struct conn *c)
{
    if (health_init(&c->base, &c->base.health))
        return -1;
    if (stats_init(&c->stats))
        return -1;
    return trace_init(&c->trace);
}

int conn_dev_up(struct conn *c, struct ibv_pd *pd)
{
    if (health_dev_init(c->base.health, pd))
        return -1;
    if (stats_dev_init(c->stats, pd))
        return -1;
    return trace_dev_init(c->trace, pd);
}

void conn_close(struct conn *c)
{
    health_fini(&c->base.health);
}
