/* The lowest layer: the access flags of every registration of the transport. */
#include <rdma/fi_domain.h>
#include "fab_mr.h"

int fab_mr_register(struct fid_domain *domain, void *buf, size_t len, struct fid_mr **mr)
{
    return fi_mr_reg(domain, buf, len, FI_SEND | FI_RECV | FI_READ | FI_WRITE, 0, 0, 0, mr, NULL);
}
