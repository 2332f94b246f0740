#ifndef PEERS_H
#define PEERS_H
#include <sys/types.h>

enum cma_state { CMA_UNKNOWN, CMA_USABLE, CMA_REFUSED };

struct node_peers {
    int count;
    pid_t pids[64];
    void *probe_addr[64];
    enum cma_state cma;
    int last_errno;
};

int peers_probe_cma(struct node_peers *peers);
int peers_copy_in(struct node_peers *peers, int peer, void *dst, void *src, size_t n);
int peers_check_only(struct node_peers *peers);
#endif
