/* CUR601: the error codes of a copy are defined in the project's header, not in the file that
 * returns them; its callers abort on them (in place, or through a fatal handler), or check and
 * recover. */
#ifndef RING_H
#define RING_H
#include <sys/types.h>

#define RING_OK 0
#define RING_DONE RING_OK
#define RING_ERR_CMA (-7)

void ring_die(int code, const char *what);
void ring_bounce(void *dst, const void *src, size_t n);
#endif
