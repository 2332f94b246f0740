/* A peer's memory read through an ops table holding a wrapper of the project (four
   arguments), and a configuration source of another struct whose field is also named `fetch`,
   filled by a positional initializer (not read by the graph): its calls pass two arguments,
   so they are never the wrapper. */
#include <assert.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>

struct peer_ops {
    ssize_t (*fetch)(pid_t pid, void *dst, void *src, size_t len);
};

struct config_source {
    const char *name;
    int (*fetch)(const char *key, char *out);
};

static ssize_t cma_read_peer(pid_t pid, void *dst, void *src, size_t len)
{
    struct iovec local = { dst, len }, remote = { src, len };
    return process_vm_readv(pid, &local, 1, &remote, 1, 0);
}

const struct peer_ops cma_peer_ops = { .fetch = cma_read_peer };

static int env_read(const char *key, char *out)
{
    strcpy(out, key);
    return 0;
}

static struct config_source sources[] = { { "env", env_read } };

void peer_fetch(const struct peer_ops *ops, pid_t pid, void *dst, void *src, size_t len)
{
    ssize_t n = ops->fetch(pid, dst, src, len);
    assert(n == (ssize_t)len); // warning: CUR601 "ops->fetch() (holds process_vm_readv())"
}

void config_load(char *out)
{
    int rc = sources[0].fetch("transport", out);
    assert(rc == 0); // ok: CUR601 (two arguments: a configuration source's fetch)
}
