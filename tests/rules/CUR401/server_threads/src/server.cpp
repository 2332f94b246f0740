// The inference server: one worker thread per device slot, each serving its own queue.
#include <thread>
#include <vector>

#include "graph_cache.h"
#include "requests.h"

static GraphCache cache;

static void handle_request(Request &request, cudaStream_t stream) {
    cudaGraphExec_t exec = cache.get(stream, request.shape);
    cudaGraphLaunch(exec, stream);
}

static void serve_requests(RequestQueue *queue, int device) {
    cudaSetDevice(device);
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    Request request;
    while (queue->pop(&request)) {
        handle_request(request, stream);
    }
}

void run_server(std::vector<RequestQueue> &queues) {
    std::vector<std::thread> workers;
    for (int device = 0; device < (int)queues.size(); ++device) {
        workers.emplace_back(serve_requests, &queues[device], device);
    }
    for (auto &worker : workers) {
        worker.join();
    }
}
