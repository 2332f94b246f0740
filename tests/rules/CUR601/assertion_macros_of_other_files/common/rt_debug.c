#include <stdlib.h>
#include "rt_debug.h"

extern void launcher_abort(int code);

void rt_abort(int code)
{
    fprintf(stderr, "runtime: aborting (%d)\n", code);
    launcher_abort(code);
    abort();
}

void rt_assert_failed(const char *file, int line, const char *what)
{
    fprintf(stderr, "%s:%d: assumption failed: %s\n", file, line, what);
    rt_abort(6);
}

void rt_log(const char *file, int line, const char *what)
{
    fprintf(stderr, "%s:%d: %s\n", file, line, what);
}
