// A pipeline stage's hooks: each back end fills a table of them (stages.cu, fences.cu).
#pragma once
#include <cuda_runtime.h>

struct stage_ops {
    void (*post)(cudaStream_t stream);
    void (*prepare)(cudaStream_t stream);
    void (*fence)(cudaStream_t stream, cudaEvent_t done);
    void (*stage_in)(float *dst, const float *src, size_t n, cudaStream_t stream);
    void (*drain)(cudaStream_t stream);
    void (*trace)(cudaStream_t stream);
};

void install_fence(struct stage_ops *ops);
void set_drain(struct stage_ops *ops, void (*drain)(cudaStream_t stream));
void trace_to_profiler(cudaStream_t stream);
void finish_stage(const struct stage_ops *ops, cudaStream_t stream);
void finish_stage_if(const struct stage_ops *ops, cudaStream_t stream, bool flush);
void prepare_stage(const struct stage_ops *ops, cudaStream_t stream);
