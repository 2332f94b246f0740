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
    void *sbuf = malloc(SCRATCH_BYTES);
    if (sbuf == NULL)
        return -1;
    ep->scratch = sbuf;
    if (pin_local(ep->domain, sbuf, scratch_len, &ep->scratch_mr)) // warning: CUR302@31 "pin_local() (wraps fi_mr_reg()) registers `sbuf`, a 256-byte block from malloc() on line 20"
        return -1;

    void *ring = mmap(NULL, INJECT_RING_BYTES, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (ring == MAP_FAILED)
        return -1;
    ep->inject_ring = ring;
    return pin_local(ep->domain, ring, INJECT_RING_BYTES, &ep->ring_mr); // ok: CUR302
}
