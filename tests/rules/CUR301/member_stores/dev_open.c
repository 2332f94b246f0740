#include <stdlib.h>
#include "dev.h"

void xt_dev_reset_status(struct xt_dev *dev)
{
    dev->status_words = malloc(64);
}
