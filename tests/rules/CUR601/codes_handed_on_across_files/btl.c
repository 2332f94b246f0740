#include <assert.h>
#include "smsc.h"

void btl_get(pid_t peer, void *dst, const void *src, size_t n)
{
    int ret = smsc_copy_from(peer, dst, src, n);
    assert(ret == 0); // warning: CUR601@5
}

void btl_get_recovering(pid_t peer, void *dst, const void *src, size_t n)
{
    int ret = smsc_copy_or_bounce(peer, dst, src, n);
    assert(ret == 0); // ok: CUR601
}

int btl_get_status(pid_t peer, void *dst, const void *src, size_t n)
{
    int ret = smsc_copy_from(peer, dst, src, n);
    if (ret < 0)
        return ret;
    return 0;
}
