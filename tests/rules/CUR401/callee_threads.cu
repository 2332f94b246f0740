// Threads started by helpers of the file before a capture; each helper's own code decides
// whether the thread still runs when the capture begins.
#include <cuda_runtime.h>
#include <pthread.h>
#include <thread>

static pthread_t g_poller;
static std::thread g_uploader;
static volatile bool g_done = false;

static void *poll_copies(void *event) {
    while (!g_done && cudaEventQuery(static_cast<cudaEvent_t>(event)) == cudaErrorNotReady) {
    }
    return nullptr;
}

static void start_poller(cudaEvent_t copies) {
    pthread_create(&g_poller, nullptr, poll_copies, copies);
}

// A proxy thread that turns its own capture mode to relaxed: a global-mode capture on
// another thread does not forbid its queries.
static pthread_t g_proxy;

static void *proxy_loop(void *event) {
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    cudaThreadExchangeStreamCaptureMode(&mode);
    while (!g_done && cudaEventQuery(static_cast<cudaEvent_t>(event)) == cudaErrorNotReady) {
    }
    return nullptr;
}

static void start_proxy(cudaEvent_t copies) {
    pthread_create(&g_proxy, nullptr, proxy_loop, copies);
}

static void start_poller_and_wait(cudaEvent_t copies) {
    pthread_t poller;
    pthread_create(&poller, nullptr, poll_copies, copies);
    pthread_join(poller, nullptr);
}

static void upload_weights(const float *host, float *device, size_t n) {
    cudaMemcpy(device, host, n * sizeof(float), cudaMemcpyHostToDevice);
}

static void start_upload(const float *host, float *device, size_t n) {
    std::thread uploader(upload_weights, host, device, n);
    uploader.detach();
}

static void start_upload_member(const float *host, float *device, size_t n) {
    g_uploader = std::thread(upload_weights, host, device, n);
}

static void upload_scoped(const float *host, float *device, size_t n) {
    std::jthread uploader(upload_weights, host, device, n);
}

cudaGraph_t capture_after_poller(cudaStream_t stream, cudaEvent_t copies) {
    cudaGraph_t graph;
    start_poller(copies);
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // error: CUR401@5 "start_poller()"
    cudaStreamEndCapture(stream, &graph);
    return graph;
}

cudaGraph_t capture_after_waited_poller(cudaStream_t stream, cudaEvent_t copies) {
    cudaGraph_t graph;
    start_poller_and_wait(copies);
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
    cudaStreamEndCapture(stream, &graph);
    return graph;
}

cudaGraph_t capture_after_detached(cudaStream_t stream, const float *host, float *device) {
    cudaGraph_t graph;
    start_upload(host, device, 1024);
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // error: CUR401@5 "start_upload()"
    cudaStreamEndCapture(stream, &graph);
    return graph;
}

cudaGraph_t capture_after_member(cudaStream_t stream, const float *host, float *device) {
    cudaGraph_t graph;
    start_upload_member(host, device, 1024);
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // error: CUR401@5 "start_upload_member()"
    cudaStreamEndCapture(stream, &graph);
    return graph;
}

cudaGraph_t capture_after_member_joined(cudaStream_t stream, const float *host, float *device) {
    cudaGraph_t graph;
    start_upload_member(host, device, 1024);
    g_uploader.join();
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
    cudaStreamEndCapture(stream, &graph);
    return graph;
}

cudaGraph_t capture_after_scoped(cudaStream_t stream, const float *host, float *device) {
    cudaGraph_t graph;
    upload_scoped(host, device, 1024);
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
    cudaStreamEndCapture(stream, &graph);
    return graph;
}

cudaGraph_t capture_after_proxy(cudaStream_t stream, cudaEvent_t copies) {
    cudaGraph_t graph;
    start_proxy(copies);
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
    cudaStreamEndCapture(stream, &graph);
    return graph;
}

cudaGraph_t capture_beside_proxy(cudaStream_t stream, cudaEvent_t copies) {
    cudaGraph_t graph;
    pthread_t proxy;
    pthread_create(&proxy, nullptr, proxy_loop, copies);
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
    cudaStreamEndCapture(stream, &graph);
    pthread_join(proxy, nullptr);
    return graph;
}

cudaGraph_t capture_relaxed_after_poller(cudaStream_t stream, cudaEvent_t copies) {
    cudaGraph_t graph;
    start_poller(copies);
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed);  // ok: CUR401
    cudaStreamEndCapture(stream, &graph);
    return graph;
}
