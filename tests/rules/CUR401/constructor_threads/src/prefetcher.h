// A prefetcher whose constructor starts its copy threads; its graphs are recorded later.
#pragma once
#include <cuda_runtime.h>
#include <thread>
#include <vector>

namespace feed {

class Prefetcher {
public:
    Prefetcher(int copiers, size_t bytes);
    ~Prefetcher();
    void record_step(cudaStream_t stream);
    void record_private(cudaStream_t stream);
    void record_after_stop(cudaStream_t stream);
    void stop();

private:
    void copy_loop();
    std::vector<std::thread> copiers_;
    void *pinned_ = nullptr;
    size_t bytes_;
    bool stopping_ = false;
};

}  // namespace feed
