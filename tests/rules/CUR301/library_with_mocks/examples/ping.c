/* A ping example: one message buffer and one ring, pinned through the library. */
#include <stdlib.h>
#include "message.h"

struct ibv_pd;
struct ibv_mr *lib_pin(struct ibv_pd *pd, void *addr, size_t len);

int ping_setup(struct ibv_pd *pd, void **message, void **ring)
{
    *message = malloc(MESSAGE_BYTES);
    if (posix_memalign(ring, 4096, RING_BYTES) != 0 || *message == NULL)
        return -1;
    if (lib_pin(pd, *ring, RING_BYTES) == NULL) // ok: CUR301
        return -1;
    return lib_pin(pd, *message, MESSAGE_BYTES) ? 0 : -1; // warning: CUR301 "lib_pin() (wraps ibv_reg_mr()) registers 24 bytes"
}
