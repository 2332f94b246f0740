/* The endpoint keeps its control messages in a free list: it hands in a static function that
   registers each block (through a helper that fills the registration's attributes and one
   that registers them on the domain), and one that only clears it. */
#include <string.h>
#include <sys/uio.h>
#include <rdma/fi_domain.h>
#include "freelist.h"

struct endpoint {
    struct fid_domain *domain;
    struct freelist ctrl;
};

static void set_mr_attr(void *data, size_t size, uint64_t access, struct fi_mr_attr *attr,
                        struct iovec *iov)
{
    iov->iov_base = data;
    iov->iov_len = size;
    attr->mr_iov = iov;
    attr->iov_count = 1;
    attr->access = access;
}

static int register_mr(struct fid_domain *domain, struct fi_mr_attr *attr, struct fid_mr **mr)
{
    return fi_mr_regattr(domain, attr, 0, mr);
}

static int endpoint_reg_mr(struct endpoint *ep, void *data, size_t size, struct fid_mr **mr)
{
    struct fi_mr_attr attr = {0};
    struct iovec iov = {0};

    set_mr_attr(data, size, FI_SEND | FI_RECV, &attr, &iov);
    return register_mr(ep->domain, &attr, mr);
}

static int endpoint_regmr(void *opaque, void *data, size_t size, void **handle)
{
    return endpoint_reg_mr(opaque, data, size, (struct fid_mr **)handle);
}

static void endpoint_touch(void *data, size_t size)
{
    memset(data, 0, size);
}

int endpoint_start(struct endpoint *ep)
{
    return freelist_init_mr(&ep->ctrl, 64, endpoint_regmr, endpoint_touch, ep);
}
