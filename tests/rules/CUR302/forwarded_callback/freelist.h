/* A free list of fixed-size entries that asks its owner to register each block it adds. The
   public initializer hands its callbacks on to an internal one, which keeps them. */
#ifndef FREELIST_H
#define FREELIST_H

#include <stddef.h>

typedef int (*freelist_regmr_fn)(void *opaque, void *data, size_t size, void **handle);
typedef void (*freelist_touch_fn)(void *data, size_t size);

struct freelist {
    size_t entry_size;
    void *opaque;
    freelist_regmr_fn regmr_fn;
    freelist_touch_fn touch_fn;
    void *handle;
};

int freelist_init_mr(struct freelist *fl, size_t entry_size, freelist_regmr_fn regmr_fn,
                     freelist_touch_fn touch_fn, void *opaque);
int freelist_add(struct freelist *fl);
int freelist_add_pages(struct freelist *fl);

#endif
