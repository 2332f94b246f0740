#pragma once
#include <cuda_runtime.h>

float read_loss(const float *device_loss);
void record_metrics(cudaEvent_t done, bool verbose);
void launch_step(cudaStream_t stream, float *weights, int n);
void drain(cudaStream_t stream);
void *grow_pool(size_t bytes);
void log_step(int step);
