/* The job's runtime over PMI: an abort takes every rank down. */
#include <stdlib.h>
#include "diag.h"

extern int PMI_Abort(int code, const char *why);

void runtime_abort(int code, const char *why)
{
    fprintf(stderr, "%s\n", why);
    PMI_Abort(code, why);
    abort(); /* PMI_Abort does not return */
}
