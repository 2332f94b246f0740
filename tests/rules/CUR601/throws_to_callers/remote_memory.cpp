#include "remote_memory.h"

#include <cerrno>
#include <fcntl.h>
#include <string>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <system_error>
#include <unistd.h>

namespace probe {

static ssize_t vm_read(pid_t pid, const iovec *local, const iovec *remote)
{
    return syscall(SYS_process_vm_readv, pid, local, 1, remote, 1, 0);
}

BadAddress::BadAddress(uintptr_t addr) : std::runtime_error("bad address " + std::to_string(addr)) {}
AccessDenied::AccessDenied() : std::runtime_error("ptrace access denied: run as root") {}

size_t RemoteMemory::readThroughProcMem(uintptr_t addr, size_t len, void *dst)
{
    std::string path = "/proc/" + std::to_string(pid_) + "/mem";
    int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) {
        if (errno == EACCES || errno == EPERM)
            throw AccessDenied();
        throw std::system_error(errno, std::generic_category(), path);
    }
    ssize_t got = ::pread(fd, dst, len, static_cast<off_t>(addr));
    ::close(fd);
    if (got != static_cast<ssize_t>(len))
        throw BadAddress(addr);
    return len;
}

// Every failure throws; a kernel without CMA (ENOSYS) leaves the tool unable to read anything.
size_t RemoteMemory::readChunk(uintptr_t addr, size_t len, char *dst)
{
    size_t done = 0;
    while (done < len) {
        iovec local{dst + done, len - done};
        iovec remote{reinterpret_cast<void *>(addr + done), len - done};
        ssize_t got = vm_read(pid_, &local, &remote); // warning: CUR601
        if (got < 0) {
            if (errno == EFAULT) {
                throw BadAddress(addr);
            } else if (errno == EPERM) {
                throw AccessDenied();
            }
            throw std::system_error(errno, std::generic_category(), "process_vm_readv");
        }
        done += static_cast<size_t>(got);
    }
    return done;
}

void RemoteMemory::read(uintptr_t addr, size_t len, void *dst)
{
    readChunk(addr, len, static_cast<char *>(dst));
}

// ENOSYS falls back to /proc/PID/mem; EPERM stays an error on purpose (no other way in).
size_t RemoteMemory::readWords(uintptr_t addr, size_t len, void *dst)
{
    iovec local{dst, len};
    iovec remote{reinterpret_cast<void *>(addr), len};
    ssize_t got = vm_read(pid_, &local, &remote); // ok: CUR601
    if (got < 0) {
        if (errno == EFAULT) {
            throw BadAddress(addr);
        } else if (errno == EPERM) {
            throw AccessDenied();
        } else if (errno == ENOSYS) {
            return readThroughProcMem(addr, len, dst);
        }
        throw std::system_error(errno, std::generic_category(), "process_vm_readv");
    }
    return static_cast<size_t>(got);
}

// Throws on any failure; the only caller catches std::system_error and reads another way.
size_t RemoteMemory::peek(uintptr_t addr, size_t len, void *dst)
{
    iovec local{dst, len};
    iovec remote{reinterpret_cast<void *>(addr), len};
    ssize_t got = process_vm_readv(pid_, &local, 1, &remote, 1, 0); // ok: CUR601
    if (got != static_cast<ssize_t>(len))
        throw std::system_error(errno, std::generic_category(), "peek");
    return len;
}

// Throws on any failure; its caller catches only BadAddress, so EPERM and ENOSYS go on up.
size_t RemoteMemory::peekStrict(uintptr_t addr, size_t len, void *dst)
{
    iovec local{dst, len};
    iovec remote{reinterpret_cast<void *>(addr), len};
    ssize_t got = process_vm_readv(pid_, &local, 1, &remote, 1, 0); // warning: CUR601
    if (got < 0)
        throw std::system_error(errno, std::generic_category(), "peekStrict");
    return static_cast<size_t>(got);
}

// A bad address is the caller's mistake; other failures are returned, not thrown.
ssize_t RemoteMemory::probeAddress(uintptr_t addr, void *dst, size_t len)
{
    iovec local{dst, len};
    iovec remote{reinterpret_cast<void *>(addr), len};
    ssize_t got = process_vm_readv(pid_, &local, 1, &remote, 1, 0); // ok: CUR601
    if (got < 0) {
        if (errno == EFAULT)
            throw BadAddress(addr);
        return -1;
    }
    return got;
}

// The throw is caught in the same function, which falls back to /proc/PID/mem.
size_t RemoteMemory::readGuarded(uintptr_t addr, size_t len, void *dst)
{
    try {
        iovec local{dst, len};
        iovec remote{reinterpret_cast<void *>(addr), len};
        ssize_t got = process_vm_readv(pid_, &local, 1, &remote, 1, 0); // ok: CUR601
        if (got < 0)
            throw std::system_error(errno, std::generic_category(), "readGuarded");
        return static_cast<size_t>(got);
    } catch (const std::exception &) {
        return readThroughProcMem(addr, len, dst);
    }
}

// errno kept in a local: EPERM and ENOSYS fall back, only the rest throws.
size_t RemoteMemory::readSaved(uintptr_t addr, size_t len, void *dst)
{
    iovec local{dst, len};
    iovec remote{reinterpret_cast<void *>(addr), len};
    ssize_t got = process_vm_readv(pid_, &local, 1, &remote, 1, 0); // ok: CUR601
    if (got < 0) {
        const int err = errno;
        if (err == ENOSYS || err == EPERM)
            return readThroughProcMem(addr, len, dst);
        throw std::system_error(err, std::generic_category(), "readSaved");
    }
    return static_cast<size_t>(got);
}

// Bound to Cython: a failure becomes a Python exception and ends the dump.
size_t RemoteMemory::readFrame(uintptr_t addr, size_t len, void *dst)
{
    iovec local{dst, len};
    iovec remote{reinterpret_cast<void *>(addr), len};
    if (process_vm_readv(pid_, &local, 1, &remote, 1, 0) < 0) // warning: CUR601
        throw std::system_error(errno, std::generic_category(), "readFrame");
    return len;
}

// An errno switch: EPERM and ENOSYS fall back, only the rest throws.
size_t RemoteMemory::readSwitched(uintptr_t addr, size_t len, void *dst)
{
    iovec local{dst, len};
    iovec remote{reinterpret_cast<void *>(addr), len};
    ssize_t got = process_vm_readv(pid_, &local, 1, &remote, 1, 0); // ok: CUR601
    if (got >= 0)
        return static_cast<size_t>(got);
    switch (errno) {
    case EPERM:
    case ENOSYS:
        return readThroughProcMem(addr, len, dst);
    case EFAULT:
        throw BadAddress(addr);
    default:
        throw std::system_error(errno, std::generic_category(), "readSwitched");
    }
}

// Called nowhere in the project (a library's API): whoever calls it decides.
size_t RemoteMemory::readUnused(uintptr_t addr, size_t len, void *dst)
{
    iovec local{dst, len};
    iovec remote{reinterpret_cast<void *>(addr), len};
    if (process_vm_readv(pid_, &local, 1, &remote, 1, 0) < 0) // ok: CUR601
        throw std::system_error(errno, std::generic_category(), "readUnused");
    return len;
}

}  // namespace probe
