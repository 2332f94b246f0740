#ifndef PEER_COPY_H
#define PEER_COPY_H
#include <sys/types.h>

/* copy n bytes from/to another process; -1 when the kernel refuses the copy */
ssize_t peer_get(pid_t peer, const void *remote, void *local, size_t n);
ssize_t peer_put(pid_t peer, const void *local, void *remote, size_t n);
/* the byte count copied, 0 when the copy failed */
ssize_t peer_get_quiet(pid_t peer, const void *remote, void *local, size_t n);

int bounce_copy(void *dst, const void *src, size_t n);
#endif
