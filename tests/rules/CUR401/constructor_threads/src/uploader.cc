#include "uploader.h"

__global__ void decode_kernel(int depth);

Uploader::Uploader(int depth, std::function<void()> on_idle)
    : depth_(depth), on_idle_(on_idle), worker_(&Uploader::upload_loop, this) {}

Uploader::~Uploader() {
    done_ = true;
    worker_.join();
}

void Uploader::upload_loop() {
    while (!done_) {
        cudaStreamSynchronize(upload_stream_);
        on_idle_();
    }
}

void Uploader::capture_decode(cudaStream_t stream) {
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // error: CUR401@5 "Uploader::Uploader()"
    decode_kernel<<<1, 32, 0, stream>>>(depth_);
    cudaStreamEndCapture(stream, &graph);
}
