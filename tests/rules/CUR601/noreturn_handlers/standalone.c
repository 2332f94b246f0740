/* the build without a transport layer */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "runtime.h"

void rt_abort(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    fputs("Fatal error> ", stderr);
    vfprintf(stderr, fmt, args);
    va_end(args);
    abort();
}
