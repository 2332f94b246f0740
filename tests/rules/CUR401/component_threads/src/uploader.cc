#include "uploader.h"
#include "staging_pool.h"

namespace tokpipe {
void Uploader::begin_uploads(int count) {
    for (int i = 0; i < count; ++i) {
        threads_.emplace_back([] { staging_put(staging_get(256)); });
    }
}

// Queued work runs later, on the thread that calls drain().
void Uploader::queue_upload(void *buffer) {
    pending_.emplace_back([buffer] { staging_put(buffer); });
}

void Uploader::drain() {
    for (auto &upload : pending_) {
        upload();
    }
    pending_.clear();
}
}  // namespace tokpipe
