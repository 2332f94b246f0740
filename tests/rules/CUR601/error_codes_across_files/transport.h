/* CUR601: a copy's failure turned into an error code, which a caller one or more calls up
 * aborts on (or asserts on), in another file; a caller that falls back is silent. */
#include <sys/types.h>

int cma_copy(pid_t pid, void *dst, const void *src, size_t n);
int pull_block(pid_t pid, void *dst, const void *src, size_t n);
int shm_copy(void *dst, const void *src, size_t n);
