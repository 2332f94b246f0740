/* Each entry point checked: a missing symbol or a failed call is an error code. */
#include <stddef.h>
#include "symbols.h"

#define SYM_CALL(table, name, call, failed) \
    do {                                    \
        if ((table).name == NULL)           \
            return -2;                      \
        if ((table).call == (failed))       \
            return -1;                      \
        return 0;                           \
    } while (0)

#define SYM_LOG(table, name, call) log_symbol(#name, call)

int log_symbol(const char *name, int value);

int ib_fork_init(void)
{
    SYM_CALL(ib_syms, start_fork_guard, start_fork_guard(), -1); // warning: CUR103 "start_fork_guard() turns on libibverbs' fork protection"
}

int ib_fork_init_logged(void)
{
    return SYM_LOG(ib_syms, start_fork_guard, start_fork_guard()); // ok: CUR103 (SYM_LOG does not call it through the table)
}

int ib_device_count(int *count)
{
    SYM_CALL(ib_syms, device_list, device_list(count) ? 0 : -1, -1);
}
