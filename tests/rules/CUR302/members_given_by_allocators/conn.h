/* A connection's per-device health probes, each in a context of its own. */
#include <stddef.h>
#include <infiniband/verbs.h>

#define wq_alloc(...) wq_alloc_at(__VA_ARGS__, __LINE__)
int wq_alloc_at(void **ptr, size_t bytes, int line);
int heap_into(void **ptr, size_t bytes);

struct health { int ndevs; struct ibv_mr *mr; };
struct health_send { struct health base; unsigned long probes[8]; };
struct stats { struct ibv_mr *mr; unsigned long hist[16]; };
struct trace { struct ibv_mr *mr; unsigned long marks[4]; };

struct conn_base { int dev; struct health *health; };
struct conn {
    struct conn_base base;
    struct stats *stats;
    struct trace *trace;
};

int health_init(struct conn_base *base, struct health **out);
int health_dev_init(struct health *h, struct ibv_pd *pd);
void health_fini(struct health **h);
int stats_swap(struct stats **st);
int stats_init(struct stats **out);
int stats_dev_init(struct stats *st, struct ibv_pd *pd);
int trace_init(struct trace **out);
int trace_dev_init(struct trace *t, struct ibv_pd *pd);
