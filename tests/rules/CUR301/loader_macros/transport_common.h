/* The transport's verbs table, filled at start-up by a loader macro. */
#pragma once
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#define LOAD_SYM(handle, symbol, funcptr)  \
    do {                                   \
        void **slot = (void **)&funcptr;   \
        void *found = dlsym(handle, symbol); \
        *slot = found;                     \
    } while (0)

#define DIVUP(x, y) (((x) + (y)-1) / (y))
#define ROUNDUP(x, y) (DIVUP((x), (y)) * (y))

#define NULL_ERROR_JMP(var, status, err, label, ...) \
    do {                                             \
        if ((var) == NULL) {                         \
            fprintf(stderr, __VA_ARGS__);            \
            status = err;                            \
            goto label;                              \
        }                                            \
    } while (0)

struct verbs_ftable {
    struct ibv_mr *(*reg_mr)(struct ibv_pd *, void *, size_t, int);
    int (*dereg_mr)(struct ibv_mr *);
};

extern struct verbs_ftable ftable;
