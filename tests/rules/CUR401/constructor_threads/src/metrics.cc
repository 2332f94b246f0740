#include <cstdio>
#include <unistd.h>

#include "metrics.h"

__global__ void reduce_kernel(int n);

static void write_counters(int level) {
    std::printf("counters at level %d\n", level);
}

Metrics::Metrics(flush_fn flush) : flush_(write_counters), reporter_(&Metrics::report_loop, this) {
    (void)flush;
}

Metrics::~Metrics() {
    quit_ = true;
    reporter_.join();
}

void Metrics::report_loop() {
    while (!quit_) {
        flush_(1);
        sleep(1);
    }
}

void Metrics::capture_reduce(cudaStream_t stream) {
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
    reduce_kernel<<<1, 32, 0, stream>>>(8);
    cudaStreamEndCapture(stream, &graph);
}

void LazyPool::start() {
    gatherer_ = std::thread(&LazyPool::gather_loop, this);
}

void LazyPool::gather_loop() {
    cudaDeviceSynchronize();
}

void LazyPool::capture_gather(cudaStream_t stream) {
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
    reduce_kernel<<<1, 32, 0, stream>>>(4);
    cudaStreamEndCapture(stream, &graph);
}

Recorder::Recorder(cudaStream_t stream) : recorder_(&Recorder::record_once, this), stream_(stream) {}

Recorder::~Recorder() {
    recorder_.join();
}

void Recorder::record_once() {
    cudaGraph_t graph;
    cudaSetDevice(0);
    cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal);  // ok: CUR401
    reduce_kernel<<<1, 32, 0, stream_>>>(2);
    cudaStreamEndCapture(stream_, &graph);
}
