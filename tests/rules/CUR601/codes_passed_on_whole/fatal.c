#include <stdio.h>
#include <stdlib.h>
#include "shm.h"

void shm_fatal(int code, const char *what)
{
    fprintf(stderr, "shm: %s failed (%d)\n", what, code);
    abort();
}
