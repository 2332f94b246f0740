/* The verbs entry points, resolved from libibverbs when the communicator starts. */
#ifndef SYMBOLS_H
#define SYMBOLS_H

struct ibv_device;

struct ib_symbols {
    int (*start_fork_guard)(void);
    struct ibv_device **(*device_list)(int *count);
};

extern struct ib_symbols ib_syms;

int ib_symbols_load(void);
int ib_fork_init(void);
int ib_device_count(int *count);

#endif
