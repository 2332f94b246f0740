#include <stdio.h>
#include "smsc.h"

int smsc_copy_from(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = cma_pull(peer, dst, src, n);
    if (rc != 0) {
        fprintf(stderr, "smsc: copy from %d failed (%d)\n", (int)peer, rc);
        return rc;
    }
    return 0;
}

/* recovers: a failed copy goes through the bounce buffer instead */
int smsc_copy_or_bounce(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = cma_pull(peer, dst, src, n);
    if (rc != 0)
        rc = bounce_copy(dst, src, n);
    return rc;
}
