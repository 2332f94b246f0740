#ifndef RT_DEBUG_H
#define RT_DEBUG_H
#include <stdio.h>

#define rt_expect_false(expr) __builtin_expect(!!(expr), 0)

void rt_abort(int code) __attribute__((__noreturn__));
void rt_assert_failed(const char *file, int line, const char *what);
void rt_log(const char *file, int line, const char *what);

/* stays in release builds: the runtime's own assertion */
#define rt_assume(op)                                      \
    do                                                     \
    {                                                      \
        if (rt_expect_false(!(op)))                        \
        {                                                  \
            rt_assert_failed(__FILE__, __LINE__, #op);     \
        }                                                  \
    } while (0)

/* only logs */
#define rt_note(op)                                        \
    do {                                                   \
        if (!(op))                                         \
            rt_log(__FILE__, __LINE__, #op);               \
    } while (0)

/* aborts when its condition holds (the other way round) */
#define rt_die_if(cond) do { if (cond) rt_abort(1); } while (0)
#endif
