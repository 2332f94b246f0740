// Uploads finished batches back to the staging pool from the uploader's own threads.
#pragma once
#include <functional>
#include <thread>
#include <vector>

namespace tokpipe {
class Uploader {
public:
    void begin_uploads(int count);
    void queue_upload(void *buffer);
    void drain();

private:
    std::vector<std::thread> threads_;
    std::vector<std::function<void()>> pending_;
};
}  // namespace tokpipe
