#include <assert.h>
#include <stdlib.h>
#include "transport.h"

void receive(pid_t pid, void *dst, const void *src, size_t n)
{
    if (cma_copy(pid, dst, src, n) != 0)
        abort(); // warning: CUR601@9
}

void receive_block(pid_t pid, void *dst, const void *src, size_t n)
{
    int rc = pull_block(pid, dst, src, n);
    assert(rc == 0); // warning: CUR601@5
}

int receive_or_fall_back(pid_t pid, void *dst, const void *src, size_t n)
{
    int rc = cma_copy(pid, dst, src, n);
    if (rc != 0)
        return shm_copy(dst, src, n); // ok: CUR601
    return 0;
}
