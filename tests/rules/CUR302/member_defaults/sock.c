/* The socket's own state is private to this file; its buffer sizes start from the file's
   defaults. The send buffer's size is never changed; the receive buffer's is an option. */
#include <stdlib.h>
#include <rdma/rdma_verbs.h>
#include "sock.h"

static uint32_t def_wmem = 8192;
static uint32_t def_rmem = 8192;

struct sock {
    struct rdma_cm_id *id;
    uint32_t sbuf_size;
    uint32_t rbuf_size;
    char *sbuf;
    char *rbuf;
    char *ctrl;
    struct ibv_mr *smr;
    struct ibv_mr *rmr;
    struct ibv_mr *cmr;
};

static void sock_set_defaults(struct sock *s, struct sock *parent)
{
    if (parent != NULL) {
        s->sbuf_size = parent->sbuf_size;
        s->rbuf_size = parent->rbuf_size;
    } else {
        s->sbuf_size = def_wmem;
        s->rbuf_size = def_rmem;
    }
}

void sock_set_rcvbuf(struct sock *s, uint32_t bytes)
{
    s->rbuf_size = bytes;
}

static int sock_init_bufs(struct sock *s, struct sock_opts *opts)
{
    s->sbuf = calloc(s->sbuf_size, 1);
    if (s->sbuf == NULL)
        return -1;
    s->smr = rdma_reg_msgs(s->id, s->sbuf, s->sbuf_size); // warning: CUR302@35 "rdma_reg_msgs() registers `s->sbuf`, a 8192-byte block from calloc() on line 40"
    s->rbuf = calloc(s->rbuf_size, 1);
    if (s->rbuf == NULL)
        return -1;
    s->rmr = rdma_reg_msgs(s->id, s->rbuf, s->rbuf_size); // ok: CUR302
    s->ctrl = calloc(opts->ctrl_bytes, 1);
    if (s->ctrl == NULL)
        return -1;
    s->cmr = rdma_reg_msgs(s->id, s->ctrl, opts->ctrl_bytes); // ok: CUR302
    return s->smr && s->rmr && s->cmr ? 0 : -1;
}

struct sock *sock_create(struct rdma_cm_id *id, struct sock_opts *opts)
{
    struct sock *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    s->id = id;
    sock_set_defaults(s, NULL);
    if (sock_init_bufs(s, opts) != 0) {
        free(s);
        return NULL;
    }
    return s;
}
