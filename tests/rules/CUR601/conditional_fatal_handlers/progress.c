#include "cma.h"
#include "check.h"

void recv_macro(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = transport_pull(peer, dst, src, n);
    XFER_FATAL_IF(rc != 0, "pulling from the peer"); // warning: CUR601@5
}

void recv_handler(pid_t peer, void *dst, const void *src, size_t n)
{
    xfer_check(transport_pull(peer, dst, src, n), "transport_pull"); // warning: CUR601@5
}

void recv_require(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = cma_get(peer, dst, src, n);
    xfer_require(rc == 0, "cma_get"); // warning: CUR601@5
}

void recv_expect(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = transport_pull(peer, dst, src, n);
    xfer_expect_ok(rc); // warning: CUR601@5
}

/* hands its parameter to the header's macro: a handler of this file */
static void check_at(int rc, const char *file, int line)
{
    (void)line;
    XFER_FATAL_IF(rc < 0, file);
}

void recv_at(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = transport_pull(peer, dst, src, n);
    check_at(rc, __FILE__, __LINE__); // warning: CUR601@5
}

void recv_checked(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = transport_pull(peer, dst, src, n);
    XFER_CHECK(rc); // warning: CUR601@5
}

int recv_noted(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = transport_pull(peer, dst, src, n);
    XFER_NOTE(rc); // ok: CUR601
    return rc ? bounce_read(dst, src, n) : 0;
}

void recv_or_die(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = cma_get(peer, dst, src, n);
    if (rc < 0)
        xfer_die(rc); // warning: CUR601@9
}

int recv_logged(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = transport_pull(peer, dst, src, n);
    XFER_LOG_IF(rc != 0, "CMA denied, copying through shared memory"); // ok: CUR601
    if (xfer_note(rc, "transport_pull")) // ok: CUR601
        return bounce_read(dst, src, n);
    return 0;
}

int recv_debug_only(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = transport_pull(peer, dst, src, n);
    XFER_DEBUG_FATAL_IF(rc != 0); // ok: CUR601
    xfer_check_strict(rc); // ok: CUR601
    if (rc != 0)
        return bounce_read(dst, src, n);
    return 0;
}

/* a probe that expects the copy to be refused (ptrace_scope=3) */
void probe_denied(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = transport_pull(peer, dst, src, n);
    XFER_FATAL_IF(rc == 0, "the copy was not refused"); // ok: CUR601
}

int recv_recovered(pid_t peer, void *dst, const void *src, size_t n)
{
    int rc = transport_pull(peer, dst, src, n);
    if (rc != 0) {
        XFER_FATAL_IF(xfer_debug_level > 3, "CMA refused"); // ok: CUR601
        rc = bounce_read(dst, src, n);
    }
    xfer_check(rc, "bounce_read"); // ok: CUR601
    return rc;
}
