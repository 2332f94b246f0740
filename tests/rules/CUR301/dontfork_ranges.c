/* CUR301/CUR302: a provider that keeps its own queues out of forked children with
 * ibv_dontfork_range() rounds the range to pages exactly as a registration does. */
#include <stdlib.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#define DB_RECORD_BYTES 64
#define QUEUE_BYTES (16 * 4096)

struct queue {
    void *ring;
    void *doorbells;
};

int queue_pin(struct queue *q)
{
    long page = sysconf(_SC_PAGESIZE);

    q->doorbells = calloc(1, DB_RECORD_BYTES);
    if (!q->doorbells)
        return -1;
    if (ibv_dontfork_range(q->doorbells, DB_RECORD_BYTES)) // warning: CUR301 "ibv_dontfork_range() covers 64 bytes"
        return -1;
    if (posix_memalign(&q->ring, page, QUEUE_BYTES))
        return -1;
    if (ibv_dontfork_range(q->ring, QUEUE_BYTES)) // ok: CUR301, CUR302 (page-aligned whole pages)
        return -1;
    return ibv_dofork_range(q->doorbells, DB_RECORD_BYTES); // ok: CUR301 (gives the range back)
}
