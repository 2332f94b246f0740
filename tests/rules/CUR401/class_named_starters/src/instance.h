#pragma once
#include <cuda_runtime.h>
#include <thread>

#include "queue.h"

class Model;

// One serving instance of a model: its completion thread waits for finished requests.
class Instance {
public:
    static int Create(Model *model, int device, Instance **made);
    void ReapCompletions();

private:
    int CaptureGraphs();
    int CaptureShape(int shape);
    cudaStream_t stream_;
    cudaEvent_t done_;
    CompletionQueue completions_;
    std::thread completion_thread_;
};

// The model: its own `Create` reads the configuration and warms a graph up on one stream.
class Model {
public:
    static int Create(const char *config, Model **made);
    int WarmUp();

private:
    cudaStream_t stream_;
};
