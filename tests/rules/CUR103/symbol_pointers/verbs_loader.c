/* libibverbs, opened on first use; each entry point a pointer of this file. */
#include <dlfcn.h>
#include <stddef.h>

#define VERBS_SYM(lib, name, fp)                          \
    do {                                                  \
        *(void **)(&fp) = dlvsym(lib, name, "IBVERBS_1.1"); \
        if ((fp) == NULL)                                 \
            return -1;                                    \
    } while (0)

static int (*verbs_fork_init_fn)(void);
static int (*verbs_fork_guard_fn)(void);

static int no_fork_guard(void)
{
    return 0;
}

int verbs_open(int want_guard)
{
    void *lib = dlopen("libibverbs.so.1", RTLD_NOW);

    if (lib == NULL)
        return -1;
    VERBS_SYM(lib, "ibv_fork_init", verbs_fork_init_fn);
    if (want_guard)
        VERBS_SYM(lib, "ibv_fork_init", verbs_fork_guard_fn);
    else
        verbs_fork_guard_fn = no_fork_guard;
    return 0;
}

int verbs_prepare_fork(void)
{
    if (verbs_fork_init_fn == NULL)
        return -1;
    return verbs_fork_init_fn(); // warning: CUR103 "verbs_fork_init_fn() turns on libibverbs' fork protection"
}

int verbs_guard(void)
{
    return verbs_fork_guard_fn(); // ok: CUR103 (it also holds no_fork_guard)
}
