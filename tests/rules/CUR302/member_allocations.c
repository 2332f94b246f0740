/* A queue pair's receive ring, allocated into a member of the connection and registered from
   there: the registration reads the block the member was last given in the same function. */
#include <stdlib.h>
#include <sys/mman.h>
#include <infiniband/verbs.h>

#define RING_BYTES 4096

struct ring { char *slots; unsigned head; };

struct conn {
    struct ibv_pd *pd;
    struct ring rx;
    char *hdr;
    struct ibv_mr *rx_mr;
    struct ibv_mr *hdr_mr;
};

void conn_refill(struct conn *c);

int conn_post_rx(struct conn *c)
{
    c->rx.slots = malloc(RING_BYTES);
    if (c->rx.slots == NULL)
        return -1;
    c->rx_mr = ibv_reg_mr(c->pd, c->rx.slots, RING_BYTES, IBV_ACCESS_LOCAL_WRITE); // warning: CUR302@34 "ibv_reg_mr() registers `c->rx.slots`, a 4096-byte block from malloc() on line 23"
    return c->rx_mr ? 0 : -1;
}

int conn_post_rx_refilled(struct conn *c)
{
    c->rx.slots = malloc(RING_BYTES);
    conn_refill(c); /* may hand the ring a buffer of its own */
    c->rx_mr = ibv_reg_mr(c->pd, c->rx.slots, RING_BYTES, IBV_ACCESS_LOCAL_WRITE); // ok: CUR302
    return c->rx_mr ? 0 : -1;
}

int conn_post_rx_mapped(struct conn *c)
{
    c->rx.slots = mmap(NULL, RING_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
    if (c->rx.slots == MAP_FAILED)
        return -1;
    c->rx_mr = ibv_reg_mr(c->pd, c->rx.slots, RING_BYTES, IBV_ACCESS_LOCAL_WRITE); // ok: CUR302
    return c->rx_mr ? 0 : -1;
}

int conn_post_rx_lazily(struct conn *c, int first)
{
    if (first)
        c->rx.slots = malloc(RING_BYTES);
    c->rx_mr = ibv_reg_mr(c->pd, c->rx.slots, RING_BYTES, IBV_ACCESS_LOCAL_WRITE); // ok: CUR302
    return c->rx_mr ? 0 : -1;
}

int conn_register_hdr(struct conn *c)
{
    /* `c->hdr` was given its block elsewhere: not known here */
    c->hdr_mr = ibv_reg_mr(c->pd, c->hdr, RING_BYTES, IBV_ACCESS_LOCAL_WRITE); // ok: CUR302
    return c->hdr_mr ? 0 : -1;
}
