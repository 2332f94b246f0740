// One solve: the iteration's kernels are captured once and the graph replayed.
#include "solver.h"

__global__ void step(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = 0.5f * (x[i] + 1.0f / (x[i] + 1.0f));
    }
}

static float *upload(const Problem &problem, cudaStream_t stream) {
    float *x = nullptr;
    cudaMalloc(&x, problem.size * sizeof(float));
    cudaMemcpyAsync(x, problem.values, problem.size * sizeof(float), cudaMemcpyHostToDevice,
                    stream);
    return x;
}

static Result replay(cudaGraph_t graph, float *x, const Problem &problem, cudaStream_t stream) {
    cudaGraphExec_t exec;
    cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0);
    for (int k = 0; k < problem.iterations; ++k) {
        cudaGraphLaunch(exec, stream);
    }
    Result result{};
    cudaMemcpyAsync(&result.objective, x, sizeof(float), cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    cudaGraphExecDestroy(exec);
    cudaFree(x);
    return result;
}

Result solve_one(const Problem &problem) {
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    float *x = upload(problem, stream);
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // error: CUR401@5 "solve_one"
    step<<<(problem.size + 255) / 256, 256, 0, stream>>>(x, problem.size);
    cudaStreamEndCapture(stream, &graph);
    return replay(graph, x, problem, stream);
}

Result solve_one_private(const Problem &problem) {
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    float *x = upload(problem, stream);
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);  // ok: CUR401
    step<<<(problem.size + 255) / 256, 256, 0, stream>>>(x, problem.size);
    cudaStreamEndCapture(stream, &graph);
    return replay(graph, x, problem, stream);
}

Result solve_one_in_order(const Problem &problem) {
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    float *x = upload(problem, stream);
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
    step<<<(problem.size + 255) / 256, 256, 0, stream>>>(x, problem.size);
    cudaStreamEndCapture(stream, &graph);
    return replay(graph, x, problem, stream);
}
