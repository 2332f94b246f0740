// Stream-ordered staging buffers: the workers and the graph code both take and return them.
#include <cuda_runtime.h>
#include "staging_pool.h"

namespace tokpipe {
static cudaStream_t g_staging_stream;

void *staging_get(size_t bytes) {
    void *buffer = nullptr;
    cudaMallocAsync(&buffer, bytes, g_staging_stream);
    return buffer;
}

void staging_put(void *buffer) {
    cudaFreeAsync(buffer, g_staging_stream);
}
}  // namespace tokpipe
