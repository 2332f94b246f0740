#include <stdlib.h>
#include <string.h>
#include "peers.h"

extern void barrier(void);

int transport_init(struct node_peers *peers)
{
    barrier();
    peers_probe_cma(peers); // ok: CUR601
    return 0;
}

void transport_get(struct node_peers *peers, int peer, void *dst, void *src, size_t n)
{
    if (peers->cma != CMA_USABLE) {
        memcpy(dst, src, n);
        return;
    }
    peers_copy_in(peers, peer, dst, src, n); // ok: CUR601
}

int transport_init_unchecked(struct node_peers *peers)
{
    peers_check_only(peers); // warning: CUR601 "is ignored"
    return 0;
}
