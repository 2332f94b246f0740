# Declarations of the CUDA runtime this package uses (included by host.pyx).
from libc.stdint cimport intptr_t

cdef extern from "cuda_runtime.h" nogil:
    ctypedef void* Stream "cudaStream_t"
    ctypedef void _HostFnDef(void* user_data)
    ctypedef _HostFnDef* HostFn "cudaHostFn_t"
    ctypedef void (*StreamCallback)(Stream stream, int status, void* user_data)
    ctypedef enum CaptureStatus "cudaStreamCaptureStatus":
        captureStatusNone = 0
        captureStatusActive = 1

    int cudaLaunchHostFunc(Stream stream, HostFn fn, void* user_data)
    int cudaStreamAddCallback(Stream stream, StreamCallback callback,
                              void* user_data, unsigned int flags)
    int cudaStreamIsCapturing(Stream stream, CaptureStatus* status)
