// Captures one training step into a CUDA graph.
#include "streams.h"

static void drain_events(cudaEvent_t done)
{
    cudaEventSynchronize(done);
}

cudaGraph_t record_step(float *data, int count, cudaStream_t stream, cudaStream_t *side,
                        cudaEvent_t done)
{
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
    streams_launch(data, count, stream);  // ok: CUR402 (launches only)
    streams_wait_all(side, 2);  // error: CUR402@5
    streams_trace(stream, 0);  // ok: CUR402 (waits only when asked)
    streams_debug_wait(stream);  // ok: CUR402 (only in debug builds)
    float *scratch = streams_scratch(1 << 20);  // error: CUR402@22
    drain_events(done);  // error: CUR402@5
    cudaStreamEndCapture(stream, &graph);
    streams_wait(stream);  // ok: CUR402 (after the capture)
    (void)scratch;
    return graph;
}

cudaGraph_t record_relaxed(float *data, int count, cudaStream_t stream)
{
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed);
    float *scratch = streams_scratch(1 << 20);  // ok: CUR402 (a relaxed capture allows it)
    streams_launch(scratch, count, stream);
    streams_wait(stream);  // error: CUR402@5
    cudaStreamEndCapture(stream, &graph);
    return graph;
}
