/* Connection objects of a transport plugin. Each kind is made in one place; the
 * registering code reaches them through the plugin's ops table, as `void *`. */
#ifndef XPORT_CONN_H
#define XPORT_CONN_H
#include <stddef.h>
#include <infiniband/verbs.h>

struct recv_conn {
    struct ibv_pd *pd;
    struct ibv_mr *flush_mr;
    int flush_word;   /* the target of the loopback flush read */
    int ready;
};

struct send_conn {
    struct ibv_pd *pd;
    struct ibv_mr *flag_mr;
    int flag;
};

struct probe_conn {
    struct ibv_pd *pd;
    struct ibv_mr *mr;
    long probe;
};

struct tmp_conn {
    struct ibv_pd *pd;
    struct ibv_mr *mr;
    int word;
};

struct ring_conn {
    struct ibv_pd *pd;
    struct ibv_mr *mr;
    unsigned head;
};
typedef struct ring_conn ring_conn_t;

struct xport_ops {
    const char *name;
    int (*accept)(void *listen, void **out);
    int (*flush)(void *conn);
    int (*signal)(void *conn);
};

int xport_page_alloc(void **out, size_t size);
int xport_calloc(void **out, size_t count, size_t size);

int recv_conn_flush_setup(struct recv_conn *rc);
int send_conn_flag_setup(struct send_conn *sc);
int probe_conn_setup(struct probe_conn *pc);
int tmp_conn_setup(struct tmp_conn *tc);
int ring_conn_setup(ring_conn_t *rc);

#endif
