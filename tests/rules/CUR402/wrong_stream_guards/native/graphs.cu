// Graph capture entry points of a simulation runtime, called from Python with any stream.
#include <cuda_runtime.h>

#include "runtime.h"

static cudaGraph_t g_graph;

bool rt_begin_capture(void *stream, int mode)
{
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    return cudaStreamBeginCapture(s, static_cast<cudaStreamCaptureMode>(mode)) == cudaSuccess;
}

bool rt_end_capture(void *stream)
{
    return cudaStreamEndCapture(static_cast<cudaStream_t>(stream), &g_graph) == cudaSuccess;
}
