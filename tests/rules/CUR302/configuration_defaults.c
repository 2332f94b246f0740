/* A socket layer over librdmacm whose buffer sizes are configuration defaults: one is a
   constant of the file, the other is read from the system's configuration at start-up. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <rdma/rdma_verbs.h>

static uint32_t def_ctrl_bytes = 1024;
static uint32_t def_wmem = 1 << 16;

struct sock {
    struct rdma_cm_id *id;
    char *ctrl;
    char *sbuf;
    struct ibv_mr *ctrl_mr;
    struct ibv_mr *smr;
};

void sock_configure(void)
{
    FILE *f = fopen("/etc/rdma/sock/wmem_default", "r");
    if (f != NULL) {
        if (fscanf(f, "%u", &def_wmem) != 1)
            def_wmem = 1 << 16;
        fclose(f);
    }
}

int sock_init_bufs(struct sock *s)
{
    char *ctrl = calloc(def_ctrl_bytes, 1);
    if (ctrl == NULL)
        return -1;
    s->ctrl = ctrl;
    s->ctrl_mr = rdma_reg_msgs(s->id, ctrl, def_ctrl_bytes); // warning: CUR302@39 "rdma_reg_msgs() registers `ctrl`, a 1024-byte block from calloc() on line 31"
    char *sbuf = calloc(def_wmem, 1);
    if (sbuf == NULL)
        return -1;
    s->sbuf = sbuf;
    s->smr = rdma_reg_msgs(s->id, sbuf, def_wmem); // ok: CUR302
    return s->ctrl_mr && s->smr ? 0 : -1;
}
