#include "errors.h"

/* always aborts: a fatal handler */
void die(const char *what, int rc)
{
    fprintf(stderr, "%s failed: %d\n", what, rc);
    fflush(stderr);
    abort();
}

void warn_only(const char *what, int rc)
{
    fprintf(stderr, "%s failed: %d\n", what, rc);
}

/* aborts on one code only: not a handler that always aborts */
void die_on_cma(int rc)
{
    if (rc == -2)
        abort();
}

/* ends the process as exit() does: the failure path ends there */
void quit(int status)
{
    fprintf(stderr, "exiting\n");
    exit(status);
}
