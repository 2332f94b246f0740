// Staging buffers for the token pipeline, shared by the prefetch workers and the graphs.
#pragma once
#include <cstddef>

namespace tokpipe {
void *staging_get(size_t bytes);
void staging_put(void *buffer);
void start_prefetchers(int count);
void stop_prefetchers();
void start_log_flushers();
void warm_staging(int count);
}  // namespace tokpipe
