/* Registrations of members of connection objects handed in by the plugin. */
#include "conn.h"

int recv_conn_flush_setup(struct recv_conn *rc)
{
    /* every recv_conn is whole pages of its own (xport_page_alloc) */
    rc->flush_mr = ibv_reg_mr(rc->pd, &rc->flush_word, sizeof(int), IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
    rc->ready = rc->flush_mr != NULL;
    return rc->ready ? 0 : -1;
}

int send_conn_flag_setup(struct send_conn *sc)
{
    sc->flag_mr = ibv_reg_mr(sc->pd, &sc->flag, sizeof(int), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return sc->flag_mr ? 0 : -1;
}

int probe_conn_setup(struct probe_conn *pc)
{
    pc->mr = ibv_reg_mr(pc->pd, &pc->probe, sizeof(long), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return pc->mr ? 0 : -1;
}

int tmp_conn_setup(struct tmp_conn *tc)
{
    tc->mr = ibv_reg_mr(tc->pd, &tc->word, sizeof(int), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return tc->mr ? 0 : -1;
}

int ring_conn_setup(ring_conn_t *rc)
{
    rc->mr = ibv_reg_mr(rc->pd, &rc->head, sizeof(unsigned), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return rc->mr ? 0 : -1;
}
