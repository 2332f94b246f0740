#pragma once
#include <cuda_runtime.h>

void streams_wait(cudaStream_t stream);
void streams_wait_all(cudaStream_t *streams, int count);
void streams_trace(cudaStream_t stream, int verbose);
void streams_debug_wait(cudaStream_t stream);
float *streams_scratch(size_t bytes);
int streams_launch(float *data, int count, cudaStream_t stream);
