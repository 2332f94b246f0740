// The pipeline's steps, each run by the server on request.
#include <cuda_runtime.h>
#include <thread>
#include "graphs.h"
#include "staging_pool.h"
#include "uploader.h"

namespace tokpipe {
cudaGraph_t run_decode_step(cudaStream_t stream) {
    start_prefetchers(4);
    return capture_decode(stream);
}

cudaGraph_t run_encode_step(cudaStream_t stream) {
    start_prefetchers(4);
    stop_prefetchers();
    return capture_encode(stream);
}

cudaGraph_t run_prefill_step(cudaStream_t stream) {
    warm_staging(4);
    start_log_flushers();
    return capture_prefill(stream);
}

cudaGraph_t run_sample_step(cudaStream_t stream) {
    start_prefetchers(2);
    return capture_sample(stream);
}

cudaGraph_t run_score_step(cudaStream_t stream) {
    return capture_score(stream);
}

// One helper thread, started here, still running while the graph is captured.
cudaGraph_t run_embed_step(cudaStream_t stream, void *stale) {
    std::thread cleaner([stale] { staging_put(stale); });
    cudaGraph_t graph = capture_embed(stream);
    cleaner.join();
    return graph;
}

cudaGraph_t run_upload_step(cudaStream_t stream, Uploader &uploader) {
    uploader.begin_uploads(2);
    return capture_upload(stream);
}

cudaGraph_t run_queued_step(cudaStream_t stream, Uploader &uploader, void *done) {
    uploader.queue_upload(done);
    return capture_queued(stream);
}
}  // namespace tokpipe
