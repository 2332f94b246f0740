#include "transport_common.h"

struct verbs_ftable ftable;

int verbs_load(void)
{
    void *lib = dlopen("libibverbs.so.1", RTLD_NOW);
    if (!lib)
        return -1;
    LOAD_SYM(lib, "ibv_reg_mr", ftable.reg_mr);
    LOAD_SYM(lib, "ibv_dereg_mr", ftable.dereg_mr);
    return 0;
}
