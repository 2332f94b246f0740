#include <cstdlib>
#include <unistd.h>
#include <infiniband/verbs.h>

class Ring {
  public:
    Ring() : slots(static_cast<char *>(malloc(64))) {}
    void map_credits() {
        void *p = nullptr;
        if (posix_memalign(&p, sysconf(_SC_PAGESIZE), sysconf(_SC_PAGESIZE)) == 0)
            credits = p;
    }
    char *slots;      // 64 bytes of heap from the constructor
    void *credits = nullptr;  // one page of its own
    void *cookie{malloc(16)}; // 16 bytes of heap from its default initializer
};

int register_ring(ibv_pd *pd, Ring *ring, ibv_mr **mrs) {
    mrs[0] = ibv_reg_mr(pd, ring->slots, 64, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    mrs[1] = ibv_reg_mr(pd, ring->credits, 8, IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
    mrs[2] = ibv_reg_mr(pd, ring->cookie, 16, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return 0;
}
