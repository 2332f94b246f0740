cdef extern from "cuda_runtime.h" nogil:
    ctypedef void* Stream "cudaStream_t"
    ctypedef void (*HostFn "cudaHostFn_t")(void*)
    ctypedef int Error "cudaError_t"
    Error cudaLaunchHostFunc(Stream, HostFn, void*)
