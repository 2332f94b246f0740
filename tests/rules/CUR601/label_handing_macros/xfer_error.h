/* Error handling of the transfer layer: log, set the return code, jump to a label. */
#ifndef XFER_ERROR_H
#define XFER_ERROR_H
#include <stdio.h>
#include <stdlib.h>

#define XFER_LOG(level, ...) fprintf(stderr, "[xfer:" #level "] " __VA_ARGS__)

#define XFER_GOTO_ERROR(label, ret, code, ...)                                 \
    do {                                                                       \
        XFER_LOG(error, __VA_ARGS__);                                          \
        ret = code;                                                            \
        goto label;                                                            \
    } while (0)

#define XFER_CHECK_ERROR(cond, label, ret, code, ...)                          \
    do {                                                                       \
        if (cond) {                                                            \
            XFER_LOG(error, __VA_ARGS__);                                      \
            ret = code;                                                        \
            goto label;                                                        \
        }                                                                      \
    } while (0)

#define XFER_CHECK_FATAL(cond, ...)                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            XFER_LOG(fatal, __VA_ARGS__);                                      \
            abort();                                                           \
        }                                                                      \
    } while (0)

#endif
