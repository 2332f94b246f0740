#ifndef XFER_CHECK_H
#define XFER_CHECK_H
#include <stdio.h>
#include <stdlib.h>

extern int xfer_debug_level;
extern int xfer_strict;

/* aborts when its condition holds */
#define XFER_FATAL_IF(cond, msg)                         \
    do {                                                 \
        if (cond) {                                      \
            fprintf(stderr, "xfer: %s (%s)\n", msg, #cond); \
            abort();                                     \
        }                                                \
    } while (0)

/* only logs */
#define XFER_LOG_IF(cond, msg) do { if (cond) fprintf(stderr, "xfer: %s\n", msg); } while (0)

/* aborts only when debugging at a high level */
#define XFER_DEBUG_FATAL_IF(cond) do { if (xfer_debug_level > 2 && (cond)) abort(); } while (0)

/* hand the code to the functions of check.c */
#define XFER_CHECK(rc) xfer_check((rc), __func__)
#define XFER_NOTE(rc) (void)xfer_note((rc), __func__)

void xfer_check(int rc, const char *what);
void xfer_require(int ok, const char *what);
void xfer_expect_ok(int rc);
int xfer_note(int rc, const char *what);
void xfer_die(int rc);
void xfer_check_strict(int rc);
#endif
