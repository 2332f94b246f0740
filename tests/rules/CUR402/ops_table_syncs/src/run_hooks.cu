// Helpers a step calls between begin and end capture, which call the table's hooks.
#include "stage_ops.h"

void finish_stage(const struct stage_ops *ops, cudaStream_t stream) {
    ops->prepare(stream);
    ops->post(stream);
}

void finish_stage_if(const struct stage_ops *ops, cudaStream_t stream, bool flush) {
    if (flush) {
        ops->post(stream);
    }
}

void prepare_stage(const struct stage_ops *ops, cudaStream_t stream) {
    ops->prepare(stream);
    ops->trace(stream);
}
