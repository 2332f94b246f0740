// CUR401 in test bodies written with gtest's macros (`TEST_F(S, name) { ... }`).
#include <gtest/gtest.h>
#include <thread>
#include <cuda_runtime.h>

static void poll_done(cudaEvent_t done) {
    while (cudaEventQuery(done) != cudaSuccess) {
    }
}

class GraphTest : public ::testing::Test {
  protected:
    cudaStream_t stream_;
    cudaEvent_t done_;
};

TEST_F(GraphTest, CapturesBesideAPoller) {
    std::thread poller(poll_done, done_);
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal);  // error: CUR401@5
    cudaStreamEndCapture(stream_, &graph);
    poller.join();
}

TEST_F(GraphTest, JoinsThePollerFirst) {
    std::thread poller(poll_done, done_);
    poller.join();
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal);  // ok: CUR401 (joined)
    cudaStreamEndCapture(stream_, &graph);
}

TEST_F(GraphTest, CapturesThreadLocal) {
    std::thread poller(poll_done, done_);
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal);  // ok: CUR401 (thread-local)
    cudaStreamEndCapture(stream_, &graph);
    poller.join();
}
