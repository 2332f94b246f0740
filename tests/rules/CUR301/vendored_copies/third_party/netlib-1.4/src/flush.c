/* netlib 1.4's flush path: its own netlib_reg() registers nothing. */
#include <stdlib.h>
#include <infiniband/verbs.h>

int netlib_reg(struct ibv_pd *pd, void *addr, size_t len, struct ibv_mr **mr);

struct flush_ctx {
    int flag;
    struct ibv_mr *mr;
};

int flush_open(struct ibv_pd *pd, struct flush_ctx **out)
{
    struct flush_ctx *ctx = calloc(1, sizeof(*ctx));
    if (ctx == NULL)
        return -1;
    *out = ctx;
    return netlib_reg(pd, &ctx->flag, sizeof(ctx->flag), &ctx->mr);  // ok: CUR301
}
