#include <stdlib.h>
#include "smsc.h"

/* three calls from the copy */
void pml_get(pid_t peer, void *dst, const void *src, size_t n)
{
    int status = btl_get_status(peer, dst, src, n);
    if (status != 0)
        abort(); // warning: CUR601@9
}

int pml_get_status(pid_t peer, void *dst, const void *src, size_t n)
{
    int status = btl_get_status(peer, dst, src, n);
    if (status != 0)
        return status;
    return 0;
}

/* four calls from the copy: past the bound the failure is followed to */
void pml_get_far(pid_t peer, void *dst, const void *src, size_t n)
{
    if (pml_get_status(peer, dst, src, n) != 0)
        abort(); // ok: CUR601
}
