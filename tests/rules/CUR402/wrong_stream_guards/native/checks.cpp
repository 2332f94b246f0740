// Debug-mode error checks, run after every kernel launch when verification is on.
#include <cstdio>

#include "runtime.h"

// Synchronizes unless the current stream captures: another stream may be capturing.
int rt_check_launch()
{
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    cudaStreamIsCapturing(rt_current_stream(), &status);
    cudaError_t e = cudaGetLastError();
    if (status == cudaStreamCaptureStatusNone) {
        e = cudaDeviceSynchronize();  // error: CUR402@13
    }
    return static_cast<int>(e);
}

// The same guard as an early return, with the driver API.
int rt_check_driver()
{
    CUstreamCaptureStatus capturing;
    cuStreamIsCapturing(rt_current_driver_stream(), &capturing);
    if (capturing != CU_STREAM_CAPTURE_STATUS_NONE)
        return 0;
    return cuCtxSynchronize() == CUDA_SUCCESS;  // error: CUR402@12
}

// Also asks whether any capture of the runtime is active on the context.
int rt_check_after_fix()
{
    if (rt_context_has_capture())
        return 0;
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    cudaStreamIsCapturing(rt_current_stream(), &status);
    if (status == cudaStreamCaptureStatusNone)
        cudaDeviceSynchronize();  // ok: CUR402 (no capture of the runtime is active)
    return 0;
}

// Synchronizes only the stream it checked.
void rt_drain_current()
{
    cudaStream_t stream = rt_current_stream();
    cudaStreamCaptureStatus status;
    cudaStreamIsCapturing(stream, &status);
    if (status == cudaStreamCaptureStatusNone)
        cudaStreamSynchronize(stream);  // ok: CUR402 (the checked stream itself)
}

// No capture check: runs at shutdown only.
void rt_shutdown()
{
    cudaDeviceSynchronize();  // ok: CUR402 (no guard to judge)
    std::puts("runtime stopped");
}
