// Instances are made one per device slot; each captures its graphs once made.
#include "instance.h"

__global__ void forward(float *out, int shape);

int Instance::Create(Model *model, int device, Instance **made) {
    cudaSetDevice(device);
    Instance *instance = new Instance();
    cudaStreamCreateWithFlags(&instance->stream_, cudaStreamNonBlocking);
    cudaEventCreate(&instance->done_);
    instance->completion_thread_ = std::thread(&Instance::ReapCompletions, instance);
    int failed = instance->CaptureGraphs();
    *made = instance;
    return failed;
}

void Instance::ReapCompletions() {
    while (true) {
        Completion done = completions_.Get();
        cudaEventSynchronize(done_);
        if (done.request < 0) {
            return;
        }
    }
}

int Instance::CaptureGraphs() {
    for (int shape = 1; shape <= 8; shape *= 2) {
        if (CaptureShape(shape) != 0) {
            return 1;
        }
    }
    return 0;
}

int Instance::CaptureShape(int shape) {
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal);  // error: CUR401@5 "Instance::Create()"
    forward<<<shape, 128, 0, stream_>>>(nullptr, shape);
    return cudaStreamEndCapture(stream_, &graph) != cudaSuccess;
}

// The model's `Create` starts no thread before its warm-up capture.
int Model::Create(const char *config, Model **made) {
    Model *model = new Model();
    cudaStreamCreateWithFlags(&model->stream_, cudaStreamNonBlocking);
    *made = model;
    return config == nullptr ? 1 : model->WarmUp();
}

int Model::WarmUp() {
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal);  // ok: CUR401
    forward<<<1, 128, 0, stream_>>>(nullptr, 1);
    return cudaStreamEndCapture(stream_, &graph) != cudaSuccess;
}
