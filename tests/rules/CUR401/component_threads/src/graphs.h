#pragma once
#include <cuda_runtime.h>

namespace tokpipe {
cudaGraph_t capture_decode(cudaStream_t stream);
cudaGraph_t capture_encode(cudaStream_t stream);
cudaGraph_t capture_prefill(cudaStream_t stream);
cudaGraph_t capture_sample(cudaStream_t stream);
cudaGraph_t capture_score(cudaStream_t stream);
cudaGraph_t capture_rerank(cudaStream_t stream, void *old_buffer);
cudaGraph_t capture_rerank_joined(cudaStream_t stream, void *old_buffer);
cudaGraph_t capture_embed(cudaStream_t stream);
cudaGraph_t capture_upload(cudaStream_t stream);
cudaGraph_t capture_queued(cudaStream_t stream);
}  // namespace tokpipe
