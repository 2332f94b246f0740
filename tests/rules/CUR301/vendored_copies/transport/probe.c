/* The transport, beside both copies: which netlib_reg() it links is the build's choice, and
   the two copies disagree, so the call is not judged. */
#include <stdlib.h>
#include <infiniband/verbs.h>

int netlib_reg(struct ibv_pd *pd, void *addr, size_t len, struct ibv_mr **mr);

int probe_register(struct ibv_pd *pd, struct ibv_mr **mr)
{
    static int token;
    return netlib_reg(pd, &token, sizeof(token), mr);  // ok: CUR301
}
