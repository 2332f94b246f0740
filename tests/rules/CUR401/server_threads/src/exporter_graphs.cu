// Graphs captured for export: run by one exporter thread, and by warm-up threads that capture
// in thread-local mode.
#include <cuda_runtime.h>

#include "exporter_graphs.h"

__global__ void forward_kernel(int shape);

void capture_for_export(cudaStream_t stream, int shape) {
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
    forward_kernel<<<1, 128, 0, stream>>>(shape);
    cudaStreamEndCapture(stream, &graph);
}

void capture_private_copy(cudaStream_t stream, int shape) {
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);  // ok: CUR401
    forward_kernel<<<1, 128, 0, stream>>>(shape);
    cudaStreamEndCapture(stream, &graph);
}
