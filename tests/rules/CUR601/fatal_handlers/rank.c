#include <assert.h>
#include "copy.h"
#include "errors.h"

void pull_or_die(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = peer_read(peer, dst, src, n);
    if (rc != 0)
        die("peer_read", rc); // warning: CUR601@9
}

void pull_or_fatal(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = peer_read(peer, dst, src, n);
    if (rc < 0)
        FATAL_ERROR("reading the peer's memory"); // warning: CUR601@9
}

int pull_via_label(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = peer_read(peer, dst, src, n);
    if (rc != 0)
        goto fail;
    return 0;
fail:
    warn_only("peer_read", rc);
    die("peer_read", rc); // warning: CUR601@5
    return rc;
}

int pull_or_bounce(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = peer_read(peer, dst, src, n);
    if (rc != 0)
        goto fallback;
    return 0;
fallback:
    LOG_ERROR("CMA denied, copying through shared memory");
    return bounce_read(dst, src, n); // ok: CUR601
}

int pull_or_warn(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = peer_read(peer, dst, src, n);
    if (rc != 0) {
        warn_only("peer_read", rc); // ok: CUR601
        return rc;
    }
    return 0;
}

void pull_conditional_handler(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = peer_read(peer, dst, src, n);
    if (rc != 0)
        die_on_cma(rc); // warning: CUR601@9
}

int pull_or_die_on_timeout(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = peer_read(peer, dst, src, n);
    die_on_timeout(rc); // ok: CUR601
    if (rc != 0)
        return bounce_read(dst, src, n);
    return 0;
}

void pull_or_quit(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = peer_read(peer, dst, src, n);
    if (rc != 0)
        quit(1); // warning: CUR601@9
    assert(rc == 0); // ok: CUR601
}

/* a tool's own end, in view where the copy fails: the path ends there */
void pull_or_exit(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = peer_read(peer, dst, src, n);
    if (rc != 0) {
        warn_only("peer_read", rc);
        exit(2);
    }
    assert(rc == 0); // ok: CUR601
}
