// Captures one training step; the helpers it calls live in other files.
#include <cuda_runtime.h>

#include "metrics.h"

cudaGraph_t capture_step(cudaStream_t stream, cudaEvent_t done, float *weights,
                         const float *device_loss, int n, int step) {
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
    launch_step(stream, weights, n);  // ok: CUR402
    float loss = read_loss(device_loss);  // error: CUR402@18 "read_loss() reaches cudaMemcpy()"
    drain(stream);  // error: CUR402@5 "reaches cudaStreamSynchronize()"
    record_metrics(done, false);  // ok: CUR402
    log_step(step);  // ok: CUR402
    void *scratch = grow_pool(1 << 20);  // error: CUR402@21 "cudaMalloc"
    cudaStreamEndCapture(stream, &graph);
    drain(stream);  // ok: CUR402
    (void)loss;
    (void)scratch;
    return graph;
}

cudaGraph_t capture_relaxed(cudaStream_t stream, float *weights, int n) {
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed);
    void *scratch = grow_pool(1 << 20);  // ok: CUR402
    launch_step(stream, weights, n);  // ok: CUR402
    cudaStreamEndCapture(stream, &graph);
    (void)scratch;
    return graph;
}
