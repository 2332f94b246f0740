/* CUR301: a registration through a table of verbs loaded at run time with dlsym(); the field
 * holding another symbol (or one loaded by a computed name) is no registration. */
#include <dlfcn.h>
#include <stdlib.h>
#include <infiniband/verbs.h>

struct verbs_table {
    struct ibv_mr *(*reg_mr)(struct ibv_pd *, void *, size_t, int);
    int (*dereg_mr)(struct ibv_mr *);
    void *(*lookup)(void *, const char *);
};

static struct verbs_table verbs;

int verbs_load(const char *path, const char *extra)
{
    void *lib = dlopen(path, RTLD_NOW);
    if (!lib)
        return -1;
    verbs.reg_mr = (struct ibv_mr *(*)(struct ibv_pd *, void *, size_t, int))dlsym(lib, "ibv_reg_mr");
    verbs.dereg_mr = (int (*)(struct ibv_mr *))dlsym(lib, "ibv_dereg_mr");
    verbs.lookup = (void *(*)(void *, const char *))dlsym(lib, extra);
    return verbs.reg_mr && verbs.dereg_mr ? 0 : -1;
}

struct ibv_mr *pin_status_word(struct ibv_pd *pd, uint64_t *status)
{
    return verbs.reg_mr(pd, status, sizeof(*status), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301 "8 bytes"
}

void *find_symbol(void *lib, const char *name)
{
    return verbs.lookup(lib, name); // ok: CUR301
}
