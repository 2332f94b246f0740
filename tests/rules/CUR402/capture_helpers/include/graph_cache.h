// Graph caches of the solver: the capture is begun by one call and ended by another, so the
// captured work is written by the callers between them.
#pragma once
#include <cuda_runtime.h>

struct graph_cache_t {
    void start_capture(cudaStream_t stream)
    {
        cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
    }

    void end_capture(cudaStream_t stream)
    {
        cudaStreamEndCapture(stream, &graph);
        if (exec == nullptr)
            cudaGraphInstantiate(&exec, graph, 0);
    }

    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
};

// Two graphs recorded alternately on the stream the cache owns.
class ping_pong_graph {
public:
    explicit ping_pong_graph(cudaStream_t stream) : stream_(stream) {}

    void begin_capture()
    {
        cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal);
    }

    void finish_capture()
    {
        cudaStreamEndCapture(stream_, &graphs_[current_]);
        current_ ^= 1;
    }

private:
    cudaStream_t stream_;
    cudaGraph_t graphs_[2] = {nullptr, nullptr};
    int current_ = 0;
};

// Captures that allow allocation: the scratch arena grows inside them.
inline void begin_relaxed_capture(cudaStream_t stream)
{
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed);
}

// A whole capture in one call: it begins and ends, so it opens no region for its callers.
inline cudaGraph_t record_fill(cudaStream_t stream, float *x, size_t n)
{
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
    cudaMemsetAsync(x, 0, n * sizeof(float), stream);
    cudaStreamEndCapture(stream, &graph);
    return graph;
}

void drain_stream(cudaStream_t stream);
