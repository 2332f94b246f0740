#include <cerrno>
#include <sys/uio.h>
#include "peer_errors.h"

struct Peer {
    pid_t pid;
    bool pull(void *dst, void *src, std::size_t len);
    void push(void *src, void *dst, std::size_t len);
};

bool Peer::pull(void *dst, void *src, std::size_t len)
{
    iovec local{dst, len}, remote{src, len};
    ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (got != static_cast<ssize_t>(len))
        throw_copy_error(errno, "CMA read"); // ok: CUR601
    return true;
}

void Peer::push(void *src, void *dst, std::size_t len)
{
    iovec local{src, len}, remote{dst, len};
    ssize_t put = process_vm_writev(pid, &local, 1, &remote, 1, 0);
    if (put < 0)
        fail_fast("CMA write refused"); // warning: CUR601@9
}
