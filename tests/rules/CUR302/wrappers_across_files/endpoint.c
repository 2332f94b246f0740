/* The endpoint registers its completion scratch from the heap and its inject ring from mmap. */
#include <stdlib.h>
#include <sys/mman.h>
#include <rdma/fi_domain.h>
#include "fab_mr.h"

#define SCRATCH_BYTES 256
#define INJECT_RING_BYTES (1 << 16)

struct endpoint {
    struct fid_domain *domain;
    void *scratch;
    void *inject_ring;
    struct fid_mr *scratch_mr;
    struct fid_mr *ring_mr;
};

int endpoint_setup(struct endpoint *ep, size_t scratch_len)
{
    void *scratch = malloc(SCRATCH_BYTES);
    if (scratch == NULL)
        return -1;
    ep->scratch = scratch;
    if (fab_mr_register_local(ep->domain, scratch, scratch_len, &ep->scratch_mr)) // warning: CUR302@43 "fab_mr_register_local() (wraps fi_mr_reg()) registers `scratch`, a 256-byte block from malloc() on line 20"
        return -1;

    void *ring = mmap(NULL, INJECT_RING_BYTES, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (ring == MAP_FAILED)
        return -1;
    ep->inject_ring = ring;
    return fab_mr_register_local(ep->domain, ring, INJECT_RING_BYTES, &ep->ring_mr); // ok: CUR302
}
