/* CUR103: a call inside the head of a block written with a macro, which tree-sitter reads as a
 * nested function definition, is still a call (read as an `if`). */
#include <infiniband/verbs.h>

#define IF_VERBS_FAILURE(call) if ((call) != 0)
#define CHECK_OK(status, call) if ((status = (call)) != 0)

int init_verbs(void)
{
    int status;
    IF_VERBS_FAILURE(ibv_fork_init()) { // warning: CUR103@22
        return -1;
    }
    CHECK_OK(status, ibv_fork_init()) { // warning: CUR103@22
        return status;
    }
    return 0;
}

int open_first(struct ibv_device **list, struct ibv_context **out)
{
    IF_VERBS_FAILURE(!(*out = ibv_open_device(list[0]))) { // ok: CUR103
        return -1;
    }
    return 0;
}
