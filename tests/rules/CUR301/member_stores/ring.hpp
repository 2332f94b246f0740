#pragma once
#include <cstdlib>
#include <unistd.h>
#include <infiniband/verbs.h>

class Ring {
  public:
    Ring() : slots(static_cast<char *>(malloc(64))) {}
    void map_credits() {
        void *p = nullptr;
        if (posix_memalign(&p, sysconf(_SC_PAGESIZE), sysconf(_SC_PAGESIZE)) == 0)
            credits = p;
    }
    char *slots;      // 64 bytes of heap from the constructor
    void *credits = nullptr;  // one page of its own
    void *cookie{malloc(16)}; // 16 bytes of heap from its default initializer
};
