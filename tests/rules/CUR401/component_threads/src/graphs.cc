// CUDA graphs of the token pipeline's steps.
#include <cuda_runtime.h>
#include <thread>
#include "graphs.h"
#include "staging_pool.h"

namespace tokpipe {
cudaGraph_t capture_decode(cudaStream_t stream) {
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // error: CUR401@5 "start_prefetchers()"
    void *scratch = staging_get(1 << 16);
    cudaMemsetAsync(scratch, 0, 1 << 16, stream);
    cudaStreamEndCapture(stream, &graph);
    return graph;
}

cudaGraph_t capture_encode(cudaStream_t stream) {
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
    cudaStreamEndCapture(stream, &graph);
    return graph;
}

cudaGraph_t capture_prefill(cudaStream_t stream) {
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
    cudaStreamEndCapture(stream, &graph);
    return graph;
}

cudaGraph_t capture_sample(cudaStream_t stream) {
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);  // ok: CUR401
    cudaStreamEndCapture(stream, &graph);
    return graph;
}

// The workers start once the graph exists.
cudaGraph_t capture_score(cudaStream_t stream) {
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
    cudaStreamEndCapture(stream, &graph);
    start_prefetchers(2);
    return graph;
}

// A helper thread whose lambda returns a buffer through the pool (another file).
cudaGraph_t capture_rerank(cudaStream_t stream, void *old_buffer) {
    cudaGraph_t graph;
    std::thread releaser([old_buffer] { staging_put(old_buffer); });
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // error: CUR401@5 "releaser"
    cudaStreamEndCapture(stream, &graph);
    releaser.join();
    return graph;
}

cudaGraph_t capture_rerank_joined(cudaStream_t stream, void *old_buffer) {
    cudaGraph_t graph;
    std::thread releaser([old_buffer] { staging_put(old_buffer); });
    releaser.join();
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
    cudaStreamEndCapture(stream, &graph);
    return graph;
}

cudaGraph_t capture_embed(cudaStream_t stream) {
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // error: CUR401@5 "run_embed_step()"
    cudaStreamEndCapture(stream, &graph);
    return graph;
}

cudaGraph_t capture_upload(cudaStream_t stream) {
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // error: CUR401@5 "begin_uploads()"
    cudaStreamEndCapture(stream, &graph);
    return graph;
}

cudaGraph_t capture_queued(cudaStream_t stream) {
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
    cudaStreamEndCapture(stream, &graph);
    return graph;
}
}  // namespace tokpipe
