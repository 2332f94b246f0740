// The prefill graphs of the uploader, recorded apart from its decode graph.
#include "uploader.h"

__global__ void prefill_kernel(int tokens);

void Uploader::capture_prefill(cudaStream_t stream, int tokens) {
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // error: CUR401@5 "Uploader::Uploader()"
    prefill_kernel<<<tokens, 128, 0, stream>>>(tokens);
    cudaStreamEndCapture(stream, &graph);
}
