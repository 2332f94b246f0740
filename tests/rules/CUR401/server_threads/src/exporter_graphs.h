#pragma once
#include <cuda_runtime.h>

void capture_for_export(cudaStream_t stream, int shape);
void capture_private_copy(cudaStream_t stream, int shape);
