/* The example's message layout. */
#ifndef EXAMPLE_MESSAGE_H
#define EXAMPLE_MESSAGE_H

#include <stdint.h>

#define MESSAGE_BYTES (3 * sizeof(uint64_t))
#define RING_BYTES (64 * 4096)

#endif
