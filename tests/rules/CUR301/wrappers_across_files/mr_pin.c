/* Pins a range for local writes and remote reads. */
#include <infiniband/verbs.h>
#include "mr_pin.h"

#define PIN_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ)

struct ibv_mr *mr_pin(struct ibv_pd *pd, void *addr, size_t len)
{
    return ibv_reg_mr(pd, addr, len, PIN_ACCESS);
}
