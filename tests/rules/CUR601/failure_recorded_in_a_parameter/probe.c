#define _GNU_SOURCE
#include <errno.h>
#include <sys/uio.h>
#include "peers.h"

static int read_word(pid_t pid, void *remote_addr, long *out)
{
    struct iovec local = {out, sizeof(*out)}, remote = {remote_addr, sizeof(*out)};

    if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != sizeof(*out))
        return -1;
    return 0;
}

/* a probe: its answer is also kept in the peers' state, read by the transport later */
int peers_probe_cma(struct node_peers *peers)
{
    long word;
    int i;

    for (i = 0; i < peers->count; i++) {
        if (read_word(peers->pids[i], peers->probe_addr[i], &word))
            goto refused;
    }
    peers->cma = CMA_USABLE;
    return 1;

refused:
    peers->cma = CMA_REFUSED;
    return 0;
}

/* the failure is returned, and the errno kept for the caller's report */
int peers_copy_in(struct node_peers *peers, int peer, void *dst, void *src, size_t n)
{
    struct iovec local = {dst, n}, remote = {src, n};

    if (process_vm_readv(peers->pids[peer], &local, 1, &remote, 1, 0) < 0) {
        peers->last_errno = errno;
        return -1;
    }
    return 0;
}

/* the same probe with nothing kept: only its result tells */
int peers_check_only(struct node_peers *peers)
{
    long word;

    if (read_word(peers->pids[0], peers->probe_addr[0], &word))
        return 0;
    peers->count = peers->count;
    return 1;
}
