// An uploader whose one thread is a member started by the constructor's initializer.
#pragma once
#include <cuda_runtime.h>
#include <functional>
#include <thread>

class Uploader {
public:
    Uploader(int depth, std::function<void()> on_idle);
    ~Uploader();
    void capture_decode(cudaStream_t stream);
    void capture_prefill(cudaStream_t stream, int tokens);

private:
    void upload_loop();
    void idle();
    int depth_;
    std::function<void()> on_idle_;
    std::thread worker_;
    cudaStream_t upload_stream_ = nullptr;
    bool done_ = false;
};
