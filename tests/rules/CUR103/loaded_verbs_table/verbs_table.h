/* The verbs functions this transport uses, loaded from libibverbs at run time so that the
   library runs (without RDMA) where libibverbs is not installed. */
#ifndef VERBS_TABLE_H
#define VERBS_TABLE_H

#include <dlfcn.h>
#include <stddef.h>

#define VT_LOAD(lib, symbol, slot)          \
    do {                                    \
        void **where = (void **)&(slot);    \
        *where = dlsym((lib), symbol);      \
    } while (0)

struct ibv_device;

struct verbs_table {
    int (*fork_init)(void);
    int (*fork_setup)(void);
    struct ibv_device **(*get_device_list)(int *count);
    int (*is_fork_initialized)(void);
};

int verbs_table_load(struct verbs_table *table);

#endif
