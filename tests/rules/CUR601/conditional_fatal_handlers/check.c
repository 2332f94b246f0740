#include "check.h"

int xfer_debug_level;
int xfer_strict;

void xfer_check(int rc, const char *what)
{
    if (rc != 0) {
        fprintf(stderr, "%s failed: %d\n", what, rc);
        abort();
    }
}

void xfer_require(int ok, const char *what)
{
    if (!ok)
        abort();
    (void)what;
}

void xfer_expect_ok(int rc)
{
    if (rc == 0)
        return;
    fprintf(stderr, "unexpected code %d\n", rc);
    abort();
}

/* always aborts, whatever it does to the code first */
void xfer_die(int rc)
{
    rc = -rc;
    fprintf(stderr, "errno %d\n", rc);
    abort();
}

/* logs and hands the code back */
int xfer_note(int rc, const char *what)
{
    if (rc)
        fprintf(stderr, "%s: %d\n", what, rc);
    return rc;
}

/* aborts on a global setting, whatever the code */
void xfer_check_strict(int rc)
{
    if (xfer_strict && rc > 1)
        abort();
}
