#include <dlfcn.h>
#include "symbols.h"

struct ib_symbols ib_syms;

int ib_symbols_load(void)
{
    void *lib = dlopen("libibverbs.so.1", RTLD_NOW);
    void **slot;

    if (lib == NULL)
        return -1;
#define RESOLVE(name, field)                    \
    do {                                        \
        slot = (void **)&field;                 \
        if ((*slot = dlsym(lib, name)) == NULL) \
            return -1;                          \
    } while (0)
    RESOLVE("ibv_fork_init", ib_syms.start_fork_guard);
    RESOLVE("ibv_get_device_list", ib_syms.device_list);
    return 0;
}
