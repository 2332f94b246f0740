/* Memory operations a transport provides: one table per backend (verbs.c, loopback.c). */
#ifndef MEM_OPS_H
#define MEM_OPS_H

#include <stddef.h>
#include <infiniband/verbs.h>

struct mem_ops {
    struct ibv_mr *(*reg_mem)(struct ibv_pd *pd, void *buf, size_t len);
    int (*account)(struct ibv_pd *pd, void *buf, size_t len);
    int (*prepare)(struct ibv_pd *pd, void *buf, size_t len);
    int (*pin)(struct ibv_pd *pd, void *buf, size_t len);
};

/* Linked in by the application that runs the loopback backend (not part of this library). */
int app_pin_buffer(struct ibv_pd *pd, void *buf, size_t len);

extern const struct mem_ops verbs_mem_ops;
extern const struct mem_ops loopback_mem_ops;

#endif
