/* The transport's page allocator: page-aligned blocks of the size asked for. */
#ifndef PAGES_H
#define PAGES_H
#include <stddef.h>

void *page_alloc(size_t bytes);
int page_alloc_into(void **out, size_t bytes);

#endif
