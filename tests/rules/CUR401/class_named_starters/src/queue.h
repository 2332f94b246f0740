#pragma once
#include <condition_variable>
#include <deque>
#include <mutex>

struct Completion {
    int request;
};

class CompletionQueue {
public:
    Completion Get() {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [this] { return !items_.empty(); });
        Completion item = items_.front();
        items_.pop_front();
        return item;
    }

private:
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<Completion> items_;
};
