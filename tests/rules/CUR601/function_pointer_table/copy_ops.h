/* Copy operations between ranks, chosen by direction and by transport. */
#ifndef COPY_OPS_H
#define COPY_OPS_H

#include <sys/types.h>
#include <sys/uio.h>

typedef ssize_t (*copy_fn)(pid_t pid, const struct iovec *local, unsigned long nlocal,
                           const struct iovec *remote, unsigned long nremote,
                           unsigned long flags);

enum copy_dir { COPY_GET, COPY_PUT };

struct cma_op { copy_fn fn; const char *name; };
struct any_op { copy_fn copy; const char *name; };
struct local_op { copy_fn local_copy; };

extern const struct cma_op cma_ops[];
extern const struct any_op any_ops[];
extern const struct local_op local_ops[];

#endif
