// CUR601: a profiler sampling another process's stack, C++; the errno is told apart by a switch.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <unistd.h>

namespace sampler {

static bool peek(pid_t pid, void *dst, const void *src, size_t len)
{
    long word;
    for (size_t done = 0; done < len; done += sizeof word) {
        errno = 0;
        word = ptrace(PTRACE_PEEKDATA, pid, static_cast<const char *>(src) + done, nullptr);
        if (errno != 0)
            return false;
        std::memcpy(static_cast<char *>(dst) + done, &word,
                    len - done < sizeof word ? len - done : sizeof word);
    }
    return true;
}

// ENOSYS goes on to ptrace, EPERM (a sibling under Yama ptrace_scope=1) does not
bool copy_stack(pid_t pid, void *dst, void *src, size_t len)
{
    iovec local{dst, len}, remote{src, len};
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0); // warning: CUR601
    if (n == static_cast<ssize_t>(len))
        return true;
    if (n < 0) {
        switch (errno) {
        case ENOSYS:
            break;
        case ESRCH:
            return false;
        default:
            std::perror("process_vm_readv");
            return false;
        }
    }
    return peek(pid, dst, src, len);
}

// every restriction errno goes on to ptrace
bool copy_stack_all(pid_t pid, void *dst, void *src, size_t len)
{
    iovec local{dst, len}, remote{src, len};
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0); // ok: CUR601
    if (n == static_cast<ssize_t>(len))
        return true;
    if (n < 0) {
        switch (errno) {
        case ENOSYS:
        case EPERM:
            return peek(pid, dst, src, len);
        case ESRCH:
            return false;
        default:
            std::perror("process_vm_readv");
            return false;
        }
    }
    return false;
}

// the error is told to the user, nothing else is tried
int sample_once(pid_t pid, void *dst, void *src, size_t len)
{
    iovec local{dst, len}, remote{src, len};
    if (process_vm_readv(pid, &local, 1, &remote, 1, 0) < 0) { // ok: CUR601
        switch (errno) {
        case EPERM:
            std::fprintf(stderr, "permission denied: run as root or lower ptrace_scope\n");
            break;
        case ESRCH:
            std::fprintf(stderr, "no such process\n");
            break;
        default:
            std::perror("process_vm_readv");
        }
        return -1;
    }
    return 0;
}

}  // namespace sampler
