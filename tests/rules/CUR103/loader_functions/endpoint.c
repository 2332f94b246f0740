/* The endpoint's verbs, loaded by name through the library's own lookup. */
#include <stddef.h>

void *ep_symbol(void *lib, const char *name);
void *ep_setting(void *lib, const char *name);

struct ep_verbs {
    int (*fork_init)(void);
    int (*fork_probe)(void);
};

static struct ep_verbs verbs;

int endpoint_open(void *lib)
{
    verbs.fork_init = (int (*)(void))ep_symbol(lib, "ibv_fork_init");
    verbs.fork_probe = (int (*)(void))ep_setting(lib, "ibv_fork_init");
    if (verbs.fork_init == NULL)
        return -1;
    verbs.fork_probe(); // ok: CUR103 (no loader fills it)
    return verbs.fork_init(); // warning: CUR103 "verbs.fork_init() turns on libibverbs' fork protection"
}
