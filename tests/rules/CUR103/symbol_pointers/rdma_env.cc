// An RDMA environment set up once per process: libibverbs loaded by hand, each symbol
// stored by a macro that takes its name last.
#include <dlfcn.h>

#define BIND_VERBS(handle, fn, symbol)             \
    *(void **)(&fn) = dlsym(handle, symbol);       \
    if (fn == nullptr) {                           \
        return -1;                                 \
    }

static int (*ForkInit)(void) = nullptr;
static const char *(*DeviceName)(void *) = nullptr;

static int BindVerbs(void *handle)
{
    BIND_VERBS(handle, ForkInit, "ibv_fork_init");
    BIND_VERBS(handle, DeviceName, "ibv_get_device_name");
    return 0;
}

int RdmaEnvInit()
{
    void *handle = dlopen("libibverbs.so.1", RTLD_NOW);
    if (handle == nullptr || BindVerbs(handle) != 0)
        return -1;
    if (ForkInit()) { // warning: CUR103 "ForkInit() turns on libibverbs' fork protection"
        return -1;
    }
    return DeviceName(nullptr) != nullptr ? 0 : -1; // ok: CUR103
}
