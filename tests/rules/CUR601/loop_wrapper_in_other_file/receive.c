#include <assert.h>
#include <stdio.h>
#include "peer_copy.h"

static int cma_enabled = 1;

void receive_long(pid_t peer, const void *remote, void *local, size_t n)
{
    ssize_t nbytes = peer_get(peer, remote, local, n);
    if (nbytes == -1) {
        cma_enabled = 0;
        fprintf(stderr, "reading the peer's memory failed, disabling CMA\n");
    }
    assert(nbytes == (ssize_t)n); // warning: CUR601@5
}

void send_long(pid_t peer, const void *local, void *remote, size_t n)
{
    ssize_t nbytes = peer_put(peer, local, remote, n);
    assert(nbytes == (ssize_t)n); // warning: CUR601@5
}

int receive_or_bounce(pid_t peer, const void *remote, void *local, size_t n)
{
    ssize_t nbytes = peer_get(peer, remote, local, n);
    if (nbytes == -1) {
        cma_enabled = 0;
        return bounce_copy(local, remote, n);
    }
    assert(nbytes == (ssize_t)n); // ok: CUR601
    return 0;
}

/* peer_get_quiet() gives 0 on failure: not a failure value the rule can follow */
void receive_quiet(pid_t peer, const void *remote, void *local, size_t n)
{
    ssize_t nbytes = peer_get_quiet(peer, remote, local, n);
    assert(nbytes >= 0); // ok: CUR601
}
