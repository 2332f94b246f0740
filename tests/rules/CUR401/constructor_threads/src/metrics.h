// Look-alikes: a constructor whose thread does no CUDA work, a member initialized from a
// function that is no thread, a class whose threads start in start(), and one whose
// constructor's thread makes the capture itself.
#pragma once
#include <cuda_runtime.h>
#include <thread>

typedef void (*flush_fn)(int);

class Metrics {
public:
    Metrics(flush_fn flush);
    ~Metrics();
    void capture_reduce(cudaStream_t stream);

private:
    void report_loop();
    flush_fn flush_;
    std::thread reporter_;
    bool quit_ = false;
};

class LazyPool {
public:
    LazyPool() = default;
    void start();
    void capture_gather(cudaStream_t stream);

private:
    void gather_loop();
    std::thread gatherer_;
};

class Recorder {
public:
    Recorder(cudaStream_t stream);
    ~Recorder();

private:
    void record_once();
    std::thread recorder_;
    cudaStream_t stream_;
};
