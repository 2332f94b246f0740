// One solver iteration, recorded once and replayed.
#include <cstdio>
#include "graph_cache.h"

__global__ void axpy(float a, const float *x, float *y, size_t n)
{
    size_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += a * x[i];
}

static void check_residual(cudaStream_t stream, const float *residual)
{
    float host = 0.0f;
    cudaMemcpy(&host, residual, sizeof(float), cudaMemcpyDeviceToHost);
    std::printf("residual %f\n", host);
}

void record_iteration(graph_cache_t &cache, cudaStream_t stream, float *x, float *y, size_t n)
{
    cache.start_capture(stream);
    axpy<<<(n + 255) / 256, 256, 0, stream>>>(2.0f, x, y, n);
    cudaStreamSynchronize(stream);  // error: CUR402
    drain_stream(stream);  // error: CUR402
    check_residual(stream, y);  // error: CUR402
    cache.end_capture(stream);
    drain_stream(stream);  // ok: CUR402 (after the capture ends)
}

void record_pair(ping_pong_graph &graphs, cudaStream_t stream, float *x, float *y, size_t n)
{
    graphs.begin_capture();
    axpy<<<(n + 255) / 256, 256, 0, stream>>>(1.0f, x, y, n);
    cudaDeviceSynchronize();  // error: CUR402
    graphs.finish_capture();
    cudaDeviceSynchronize();  // ok: CUR402 (after the capture ends)
}

void record_with_scratch(cudaStream_t stream, float **scratch, size_t n)
{
    begin_relaxed_capture(stream);
    cudaMalloc((void **)scratch, n * sizeof(float));  // ok: CUR402 (a relaxed capture allows it)
    cudaStreamSynchronize(stream);  // error: CUR402
    cudaGraph_t graph;
    cudaStreamEndCapture(stream, &graph);
}

void record_two_streams(graph_cache_t &cache, cudaStream_t a, cudaStream_t b, float *x, size_t n)
{
    cache.start_capture(a);
    cudaMemsetAsync(x, 0, n * sizeof(float), a);
    cache.end_capture(a);
    cache.start_capture(b);  // (never ended here: no region this file can see)
    cudaStreamSynchronize(a);  // ok: CUR402 (the capture on `b` has no end in this block)
}

void refill(cudaStream_t stream, float *x, size_t n)
{
    cudaGraph_t graph = record_fill(stream, x, n);
    cudaStreamSynchronize(stream);  // ok: CUR402 (record_fill ends its own capture)
    cudaGraphDestroy(graph);
}
