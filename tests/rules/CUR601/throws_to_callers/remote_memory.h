// A debugger's reader of another process's memory (the tracee), throwing on failures.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <sys/types.h>

namespace probe {

struct BadAddress : std::runtime_error {
    explicit BadAddress(uintptr_t addr);
};

struct AccessDenied : std::runtime_error {
    AccessDenied();
};

class RemoteMemory {
public:
    explicit RemoteMemory(pid_t pid) : pid_(pid) {}
    void read(uintptr_t addr, size_t len, void *dst);
    size_t readWords(uintptr_t addr, size_t len, void *dst);
    size_t peek(uintptr_t addr, size_t len, void *dst);
    size_t peekStrict(uintptr_t addr, size_t len, void *dst);
    ssize_t probeAddress(uintptr_t addr, void *dst, size_t len);
    size_t readGuarded(uintptr_t addr, size_t len, void *dst);
    size_t readSaved(uintptr_t addr, size_t len, void *dst);
    size_t readThroughProcMem(uintptr_t addr, size_t len, void *dst);
    size_t readFrame(uintptr_t addr, size_t len, void *dst);
    size_t readUnused(uintptr_t addr, size_t len, void *dst);
    size_t readSwitched(uintptr_t addr, size_t len, void *dst);

private:
    size_t readChunk(uintptr_t addr, size_t len, char *dst);
    pid_t pid_;
};

}  // namespace probe
