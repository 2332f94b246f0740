/* Memory registration for the libfabric transport, in two layers. */
#ifndef FAB_MR_H
#define FAB_MR_H

#include <stddef.h>
#include <rdma/fi_domain.h>

int fab_mr_register(struct fid_domain *domain, void *buf, size_t len, struct fid_mr **mr);
int pin_local(struct fid_domain *domain, void *buf, size_t len, struct fid_mr **mr);

#endif
