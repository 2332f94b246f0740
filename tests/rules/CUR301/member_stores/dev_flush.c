#include <infiniband/verbs.h>
#include <stdlib.h>
#include <hip/hip_runtime.h>
#include "dev.h"

#define XT_FLUSH_LENGTH 8

int xt_dev_init_flush(struct xt_dev *dev)
{
    /* one page of its own: the rounded-out page is the allocation's */
    dev->zero_mr = ibv_reg_mr(dev->pd, dev->zero_page, XT_FLUSH_LENGTH, IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
    /* the GPU's HDP flush register: device MMIO, no host page */
    dev->flag_mr = ibv_reg_mr(dev->pd, dev->hdp_flag, 32, IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
    /* a 64-byte malloc block */
    dev->scratch_mr = ibv_reg_mr(dev->pd, dev->scratch, XT_FLUSH_LENGTH, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    /* whole pages in one store, a small heap block in another */
    dev->status_mr = ibv_reg_mr(dev->pd, dev->status_words, 64, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    /* page-aligned, but its last page is shared: the start is on a page of its own only */
    dev->tail_mr = ibv_reg_mr(dev->pd, dev->tail_buf, XT_FLUSH_LENGTH, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    /* a size the caller picks: not known to be whole pages */
    dev->doorbell_mr = ibv_reg_mr(dev->pd, dev->doorbell, XT_FLUSH_LENGTH, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return 0;
}

/* the stores: in this file, and one more in dev_open.c */
int xt_dev_open(struct xt_dev *dev, size_t doorbell_size)
{
    int hip_dev = 0;

    if (xt_dev_buf_alloc(dev, sysconf(_SC_PAGESIZE), &dev->zero_page) != 0) {
        return -1;
    }
    dev->scratch = malloc(64);
    if (xt_dev_buf_alloc(dev, 2 * sysconf(_SC_PAGESIZE), &dev->status_words) != 0) {
        return -1;
    }
    if (xt_dev_buf_alloc(dev, 4160, &dev->tail_buf) != 0) {
        return -1;
    }
    if (xt_dev_buf_alloc(dev, doorbell_size, &dev->doorbell) != 0) {
        return -1;
    }
    hipGetDevice(&hip_dev);
    hipDeviceGetAttribute((int *)&dev->hdp_flag, hipDeviceAttributeHdpMemFlushCntl, hip_dev);
    return 0;
}
