#include <stdarg.h>
#include <stdio.h>
#include "runtime.h"

RT_NORETURN static void rt_abort_helper(const char *source, const char *message)
{
    fprintf(stderr, "------ Exiting: %s ------\nReason: %s\n", source, message);
    fflush(stderr);
    rt_layer_abort(message);
}

void rt_abort(const char *fmt, ...)
{
    char message[256];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof(message), fmt, args);
    va_end(args);
    rt_abort_helper("rt_abort", message);
}

void rt_warn(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vfprintf(stderr, fmt, args);
    va_end(args);
}
