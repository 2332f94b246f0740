/* The library's diagnostics: message macros over its runtime's job abort. */
#ifndef DIAG_H
#define DIAG_H
#include <stdio.h>

void runtime_abort(int code, const char *why);

#define ERROR_MSG(...)                                                  \
    do {                                                                \
        fprintf(stderr, "[pe] ERROR: ");                                \
        fprintf(stderr, __VA_ARGS__);                                   \
    } while (0)

#define FATAL_MSG(...)                                                  \
    do {                                                                \
        ERROR_MSG(__VA_ARGS__);                                         \
        runtime_abort(1, "exited in error");                            \
    } while (0)

#define WARN_MSG(...)                                                   \
    do {                                                                \
        fprintf(stderr, "[pe] WARN: ");                                 \
        fprintf(stderr, __VA_ARGS__);                                   \
    } while (0)

#endif
