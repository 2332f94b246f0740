#include "verbs_table.h"

static int fork_setup_none(void)
{
    return 0;
}

int verbs_table_load(struct verbs_table *table)
{
    void *lib = dlopen("libibverbs.so.1", RTLD_NOW);

    if (lib == NULL)
        return -1;
    VT_LOAD(lib, "ibv_fork_init", table->fork_init);
    VT_LOAD(lib, "ibv_get_device_list", table->get_device_list);
    VT_LOAD(lib, "ibv_is_fork_initialized", table->is_fork_initialized);
    /* rdma-core before 35 has no ibv_is_fork_initialized: fork setup is then done here */
    if (table->is_fork_initialized == NULL)
        table->fork_setup = fork_setup_none;
    else
        VT_LOAD(lib, "ibv_fork_init", table->fork_setup);
    return 0;
}
