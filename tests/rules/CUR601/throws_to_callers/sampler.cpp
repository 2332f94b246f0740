// The sampling tool: reads a target's stack through RemoteMemory.
#include <cstdio>
#include <cstdlib>
#include <system_error>

#include "remote_memory.h"

namespace {

size_t sample_stack(probe::RemoteMemory &memory, uintptr_t sp, char *buf, size_t len)
{
    try {
        return memory.peek(sp, len, buf);
    } catch (const std::system_error &err) {
        std::fprintf(stderr, "CMA read failed (%s), using /proc/PID/mem\n", err.what());
        return memory.readThroughProcMem(sp, len, buf);
    }
}

size_t sample_registers(probe::RemoteMemory &memory, uintptr_t at, char *buf, size_t len)
{
    try {
        return memory.peekStrict(at, len, buf);
    } catch (const probe::BadAddress &) {
        return 0;  // the thread exited under us: skip this sample
    }
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    probe::RemoteMemory memory(static_cast<pid_t>(std::atoi(argv[1])));
    uintptr_t at = std::strtoull(argv[2], nullptr, 0);
    char buf[4096];
    size_t got = sample_stack(memory, at, buf, sizeof buf);
    got += sample_registers(memory, at, buf, sizeof buf);
    std::printf("%zu bytes\n", got);
    return 0;
}
