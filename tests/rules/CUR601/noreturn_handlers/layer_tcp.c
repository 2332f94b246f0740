#include <stdio.h>
#include <stdlib.h>
#include "runtime.h"

void rt_layer_abort(const char *why)
{
    fprintf(stderr, "tcp layer: %s\n", why);
    exit(1);
}
