#define _GNU_SOURCE
#include <sys/uio.h>
#include "peer_copy.h"

ssize_t peer_get(pid_t peer, const void *remote, void *local, size_t n)
{
    ssize_t nr, sum = 0;
    struct iovec to, from;

    do {
        to.iov_base = (char *)local + sum;
        to.iov_len = n - sum;
        from.iov_base = (char *)remote + sum;
        from.iov_len = n - sum;
        nr = process_vm_readv(peer, &to, 1, &from, 1, 0);
        if (nr == -1)
            break;
        sum += nr;
    } while (sum != (ssize_t)n);

    return (nr != -1) ? sum : nr;
}

ssize_t peer_put(pid_t peer, const void *local, void *remote, size_t n)
{
    ssize_t nr = 0, sum = 0;
    struct { char *from, *to; } cursor = { (char *)local, remote };
    struct iovec from, to;

    while ((sum != (ssize_t)n) && (nr != -1)) {
        from.iov_base = cursor.from;
        from.iov_len = n - sum;
        to.iov_base = cursor.to;
        to.iov_len = n - sum;
        nr = process_vm_writev(peer, &from, 1, &to, 1, 0);
        sum += nr;
        cursor.from += nr;
        cursor.to += nr;
    }
    return nr == -1 ? -1 : sum;
}

ssize_t peer_get_quiet(pid_t peer, const void *remote, void *local, size_t n)
{
    ssize_t nr, sum = 0;
    struct iovec to, from;

    while (sum != (ssize_t)n) {
        to.iov_base = (char *)local + sum;
        to.iov_len = n - sum;
        from.iov_base = (char *)remote + sum;
        from.iov_len = n - sum;
        nr = process_vm_readv(peer, &to, 1, &from, 1, 0);
        if (nr == -1)
            break;
        sum += nr;
    }
    return (nr != -1) ? sum : 0;
}
