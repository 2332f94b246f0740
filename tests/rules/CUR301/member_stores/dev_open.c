#include <stdlib.h>
#include <hip/hip_runtime.h>
#include "dev.h"

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

void xt_dev_reset_status(struct xt_dev *dev)
{
    dev->status_words = malloc(64);
}
