// Every capture of this tool begins on g_stream, the stream its check asks about.
#include <cuda_runtime.h>

static cudaStream_t g_stream;
static cudaGraph_t g_graph;

__global__ void relax(float *x) { x[threadIdx.x] *= 0.5f; }

void check_errors()
{
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    cudaStreamIsCapturing(g_stream, &status);
    if (status == cudaStreamCaptureStatusNone)
        cudaDeviceSynchronize();  // ok: CUR402 (every capture begins on g_stream)
}

void record(float *x)
{
    cudaStreamBeginCapture(g_stream, cudaStreamCaptureModeGlobal);
    relax<<<1, 32, 0, g_stream>>>(x);
    check_errors();
    cudaStreamSynchronize(g_stream);  // error: CUR402@5
    cudaStreamEndCapture(g_stream, &g_graph);
}
