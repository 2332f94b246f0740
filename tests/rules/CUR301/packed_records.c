/* CUR301: the size of a packed record is its members' sizes added up (GCC's
 * `__attribute__((packed))`: no padding), so a block of packed slots is known to end inside a
 * page, or to be whole pages. */
#include <malloc.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#define SLOTS 16

struct __attribute__((__packed__)) slot {
    uint16_t len;
    char payload[54];
    uint64_t tag;
};  /* 64 bytes */

struct reply {
    char header[40];
    struct slot body;
};  /* 104 bytes */

struct page_slot {
    uint32_t seq;
    char payload[4092];
} __attribute__((packed));  /* 4096 bytes */

struct wide_slot {
    uint32_t seq;
    char payload[4092];
} __attribute__((aligned(64)));  /* layout not read: no finding */

struct ibv_mr *register_slots(struct ibv_pd *pd)
{
    struct slot *slots = memalign(4096, SLOTS * sizeof(struct slot));
    return ibv_reg_mr(pd, slots, SLOTS * sizeof(struct slot), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301 "registers 1024 bytes"
}

struct ibv_mr *register_replies(struct ibv_pd *pd)
{
    struct reply *replies = memalign(4096, SLOTS * sizeof(struct reply));
    return ibv_reg_mr(pd, replies, SLOTS * sizeof(struct reply), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301 "registers 1664 bytes"
}

struct ibv_mr *register_page_slots(struct ibv_pd *pd)
{
    struct page_slot *slots = memalign(4096, SLOTS * sizeof(struct page_slot));
    return ibv_reg_mr(pd, slots, SLOTS * sizeof(struct page_slot), IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
}

struct ibv_mr *register_wide_slots(struct ibv_pd *pd)
{
    struct wide_slot *slots = memalign(4096, 3 * sizeof(struct wide_slot));
    return ibv_reg_mr(pd, slots, 3 * sizeof(struct wide_slot), IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
}
