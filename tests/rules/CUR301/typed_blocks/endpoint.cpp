// C++ objects reached through a pointer parameter: one made only as whole pages by the
// project's allocator, one also made with `new` (a heap block sharing its pages).
#include <infiniband/verbs.h>
#include <new>
#include "conn.h"

namespace xport {

struct Window {
    ibv_pd *pd = nullptr;
    ibv_mr *mr = nullptr;
    unsigned long doorbell = 0;
};

struct Mailbox {
    ibv_pd *pd = nullptr;
    ibv_mr *mr = nullptr;
    unsigned long slot = 0;
};

int register_window(Window *w) {
    w->mr = ibv_reg_mr(w->pd, &w->doorbell, sizeof(w->doorbell), IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
    return w->mr ? 0 : -1;
}

int register_mailbox(Mailbox *m) {
    m->mr = ibv_reg_mr(m->pd, &m->slot, sizeof(m->slot), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return m->mr ? 0 : -1;
}

Window *open_window(ibv_pd *pd) {
    Window *w = nullptr;
    if (xport_page_alloc(reinterpret_cast<void **>(&w), sizeof(Window)) != 0)
        return nullptr;
    new (w) Window;  // constructed in its own pages
    w->pd = pd;
    return w;
}

Mailbox *open_mailbox(ibv_pd *pd, bool pooled) {
    Mailbox *m = nullptr;
    if (pooled && xport_page_alloc(reinterpret_cast<void **>(&m), sizeof(Mailbox)) == 0)
        return m;
    m = new Mailbox;
    m->pd = pd;
    return m;
}

}  // namespace xport
