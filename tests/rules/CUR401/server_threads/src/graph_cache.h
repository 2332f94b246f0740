// A per-request graph cache: the first request of a shape captures its graph.
#pragma once
#include <cuda_runtime.h>
#include <map>

class GraphCache {
public:
    cudaGraphExec_t get(cudaStream_t stream, int shape) {
        auto found = execs_.find(shape);
        if (found != execs_.end()) {
            return found->second;
        }
        return capture(stream, shape);
    }

    cudaGraphExec_t capture(cudaStream_t stream, int shape) {
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // error: CUR401@9 "serve_requests()"
        enqueue_forward(stream, shape);
        cudaStreamEndCapture(stream, &graph);
        cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0);
        execs_[shape] = exec;
        return exec;
    }

    cudaGraphExec_t capture_private(cudaStream_t stream, int shape) {
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);  // ok: CUR401
        enqueue_forward(stream, shape);
        cudaStreamEndCapture(stream, &graph);
        cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0);
        return exec;
    }

private:
    void enqueue_forward(cudaStream_t stream, int shape);
    std::map<int, cudaGraphExec_t> execs_;
};
