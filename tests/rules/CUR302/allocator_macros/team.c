/* CUR302: blocks from the project's allocation macros are the C library's blocks. */
#include <unistd.h>
#include <infiniband/verbs.h>
#include "utils/coll_alloc.h"

#define FLAG_BYTES 4096

struct team {
    struct ibv_pd *pd;
    struct ibv_mr *mrs[6];
};

int team_register_flags(struct team *team)
{
    int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
    void *flags = coll_malloc(FLAG_BYTES, "team flags");
    void *barrier = coll_calloc(2, FLAG_BYTES, "team barrier");
    void *cacheline = NULL;
    void *pages = NULL;
    void *tracked = coll_malloc_tracked(FLAG_BYTES, "tracked");

    if (coll_memalign(&cacheline, 64, FLAG_BYTES, "scratch") != 0)
        return -1;
    if (coll_memalign(&pages, sysconf(_SC_PAGESIZE), 4 * FLAG_BYTES, "pages") != 0)
        return -1;
    team->mrs[0] = ibv_reg_mr(team->pd, flags, FLAG_BYTES, access); // warning: CUR302 "from coll_malloc() on line 16"
    team->mrs[1] = ibv_reg_mr(team->pd, barrier, 2 * FLAG_BYTES, access); // warning: CUR302
    team->mrs[2] = ibv_reg_mr(team->pd, cacheline, FLAG_BYTES, access); // warning: CUR302
    team->mrs[3] = ibv_reg_mr(team->pd, pages, 4 * FLAG_BYTES, access); // ok: CUR302 (page-aligned whole pages)
    team->mrs[4] = ibv_reg_mr(team->pd, tracked, FLAG_BYTES, access); // ok: CUR302 (size not the one given)
    return 0;
}
