#pragma once
#include <cuda_runtime.h>

void wait_for(cudaStream_t stream);
