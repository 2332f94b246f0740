#pragma once
#include <cuda.h>
#include <cuda_runtime.h>

cudaStream_t rt_current_stream();
CUstream rt_current_driver_stream();
bool rt_context_has_capture();
bool rt_begin_capture(void *stream, int mode);
bool rt_end_capture(void *stream);
