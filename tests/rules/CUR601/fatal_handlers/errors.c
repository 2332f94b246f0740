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

/* aborts on one code only: the one peer_read() returns when the copy was denied */
void die_on_cma(int rc)
{
    if (rc == -2)
        abort();
}

/* aborts on another code only (a timeout): not on a denied copy */
void die_on_timeout(int rc)
{
    if (rc == -5)
        abort();
}

/* ends the process by exit(): as fatal to the job as abort() */
void quit(int status)
{
    fprintf(stderr, "exiting\n");
    exit(status);
}
