// Threads started by helpers that hand the thread back to the caller, which keeps it.
#include <cuda_runtime.h>
#include <thread>

static void watch_copies(cudaEvent_t copies) {
    while (cudaEventQuery(copies) == cudaErrorNotReady) {
    }
}

static void count_batches(int *batches) {
    for (int i = 0; i < 1000; ++i) {
        ++*batches;
    }
}

static std::thread launch_watcher(cudaEvent_t copies) {
    return std::thread(watch_copies, copies);
}

static std::jthread launch_counter(int *batches) {
    return std::jthread(count_batches, batches);
}

static int make_watcher(cudaEvent_t copies) {
    (void)copies;
    return 0;
}

cudaGraph_t record_while_watching(cudaStream_t stream, cudaEvent_t copies) {
    cudaGraph_t graph;
    std::thread watcher = launch_watcher(copies);
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // error: CUR401@5
    cudaStreamEndCapture(stream, &graph);
    watcher.join();
    return graph;
}

cudaGraph_t record_after_watching(cudaStream_t stream, cudaEvent_t copies) {
    cudaGraph_t graph;
    std::thread watcher = launch_watcher(copies);
    watcher.join();
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
    cudaStreamEndCapture(stream, &graph);
    return graph;
}

cudaGraph_t record_while_counting(cudaStream_t stream, int *batches) {
    cudaGraph_t graph;
    auto counter = launch_counter(batches);
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
    cudaStreamEndCapture(stream, &graph);
    return graph;
}

cudaGraph_t record_thread_local(cudaStream_t stream, cudaEvent_t copies) {
    cudaGraph_t graph;
    std::thread watcher = launch_watcher(copies);
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);  // ok: CUR401
    cudaStreamEndCapture(stream, &graph);
    watcher.join();
    return graph;
}

cudaGraph_t record_with_handle(cudaStream_t stream, cudaEvent_t copies) {
    cudaGraph_t graph;
    int watcher = make_watcher(copies);
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
    cudaStreamEndCapture(stream, &graph);
    (void)watcher;
    return graph;
}
