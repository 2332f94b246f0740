#include "ring.hpp"

int register_ring(ibv_pd *pd, Ring *ring, ibv_mr **mrs) {
    mrs[0] = ibv_reg_mr(pd, ring->slots, 64, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    mrs[1] = ibv_reg_mr(pd, ring->credits, 8, IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
    mrs[2] = ibv_reg_mr(pd, ring->cookie, 16, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return 0;
}
