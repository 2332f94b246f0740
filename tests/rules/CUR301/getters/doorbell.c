/* Free functions of the project that return module state: getters too. */
#include <stdlib.h>
#include <unistd.h>
#include <infiniband/verbs.h>

struct doorbell_state {
    void *page;     /* one page of its own */
    void *scratch;  /* a 16-byte heap block */
};

static struct doorbell_state db_state;

int doorbell_init(void)
{
    if (posix_memalign(&db_state.page, sysconf(_SC_PAGESIZE), sysconf(_SC_PAGESIZE)) != 0)
        return -1;
    db_state.scratch = malloc(16);
    return db_state.scratch ? 0 : -1;
}

static void *doorbell_page(void)
{
    return db_state.page;
}

static void *doorbell_scratch(void)
{
    return db_state.scratch;
}

static void *doorbell_slot(int i)
{
    /* names its parameter: not a getter */
    return (char *)db_state.page + i * 64;
}

int doorbell_register(struct ibv_pd *pd, struct ibv_mr **mrs)
{
    mrs[0] = ibv_reg_mr(pd, doorbell_page(), 8, IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
    mrs[1] = ibv_reg_mr(pd, doorbell_scratch(), 16, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    mrs[2] = ibv_reg_mr(pd, doorbell_slot(1), 8, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return 0;
}
