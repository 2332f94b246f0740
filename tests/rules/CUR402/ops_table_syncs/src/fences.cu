// A back end whose fence waits on the host, stored by assignment.
#include "stage_ops.h"

static void wait_fence(cudaStream_t stream, cudaEvent_t done) {
    cudaEventRecord(done, stream);
    cudaEventSynchronize(done);
}

void install_fence(struct stage_ops *ops) {
    ops->fence = wait_fence;
}

void set_drain(struct stage_ops *ops, void (*drain)(cudaStream_t stream)) {
    ops->drain = drain;
}
