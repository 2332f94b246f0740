/* The transport's start: its device list, after the verbs functions are loaded. */
#include <stdlib.h>
#include "verbs_table.h"

static struct verbs_table verbs;

int transport_start(int *ndevices)
{
    if (verbs_table_load(&verbs) != 0)
        return -1;
    verbs.fork_init(); // warning: CUR103 "verbs.fork_init() turns on libibverbs' fork protection"
    verbs.fork_setup(); // ok: CUR103 (the field also holds fork_setup_none)
    return verbs.get_device_list(ndevices) ? 0 : -1;
}

int transport_start_on_request(int *ndevices)
{
    if (verbs_table_load(&verbs) != 0)
        return -1;
    if (getenv("RDMAV_FORK_SAFE") != NULL)
        verbs.fork_init(); // ok: CUR103 (only where the user asked for fork protection)
    return verbs.get_device_list(ndevices) ? 0 : -1;
}
