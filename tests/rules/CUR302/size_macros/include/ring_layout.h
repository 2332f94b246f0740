/* The completion ring's layout and the size arithmetic the transport computes its blocks with. */
#ifndef RING_LAYOUT_H
#define RING_LAYOUT_H

#include <stdint.h>

#define RING_PAGE 4096
#define RING_SLOTS 32

#define RING_MAX(a, b) ((a) > (b) ? (a) : (b))
#define RING_ALIGN_DOWN(x, a) ((x) & ~((a) - 1))
#define RING_ALIGN_UP(x, a) RING_ALIGN_DOWN((x) + ((a) - 1), (a))

struct ring_slot {
    uint64_t wr_id;
    uint32_t len;
    uint32_t flags;
    char inline_data[40];
};

struct ring_hdr {
    uint64_t head;
    uint64_t tail;
};

/* a header and n slots, each on its own cache line */
#define RING_BYTES(n) \
    (sizeof(struct ring_hdr) + (n) * RING_ALIGN_UP(sizeof(struct ring_slot), 64))

/* n slots, each in pages of its own */
#define RING_PAGED_BYTES(n) ((n) * RING_ALIGN_UP(sizeof(struct ring_slot), RING_PAGE))

#ifdef RING_LARGE_INLINE
#define RING_INLINE_BYTES(n) ((n) * 8192)
#else
#define RING_INLINE_BYTES(n) ((n) * 256)
#endif

#endif
