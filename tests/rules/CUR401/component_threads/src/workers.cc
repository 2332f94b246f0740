// Background workers of the token pipeline.
#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>
#include "staging_pool.h"

namespace tokpipe {
static std::vector<std::thread> g_prefetchers;
static std::vector<std::thread> g_flushers;
static std::atomic<bool> g_stop{false};

static void prefetch_loop() {
    while (!g_stop) {
        void *chunk = staging_get(1 << 20);
        staging_put(chunk);
    }
}

void start_prefetchers(int count) {
    g_stop = false;
    for (int i = 0; i < count; ++i) {
        g_prefetchers.emplace_back(prefetch_loop);
    }
}

void stop_prefetchers() {
    g_stop = true;
    for (auto &worker : g_prefetchers) {
        worker.join();
    }
    g_prefetchers.clear();
}

// Host-only: flushes the log file, no CUDA call.
void start_log_flushers() {
    g_flushers.emplace_back([] {
        while (!g_stop) {
            std::fflush(stderr);
        }
    });
}

// Touches the pool from a few threads and waits for them before returning.
void warm_staging(int count) {
    std::vector<std::thread> warmers;
    for (int i = 0; i < count; ++i) {
        warmers.emplace_back([] { staging_put(staging_get(4096)); });
    }
    for (auto &warmer : warmers) {
        warmer.join();
    }
}
}  // namespace tokpipe
