// Captures a training step; the hooks come from whichever back end filled the table.
#include "stage_ops.h"

__global__ void scale(float *x, size_t n);

cudaGraph_t capture_step(const struct stage_ops *ops, cudaStream_t stream, cudaEvent_t done,
                         float *dev, const float *host, size_t n) {
    cudaGraph_t graph;
    ops->prepare(stream); // ok: CUR402
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
    ops->stage_in(dev, host, n, stream); // ok: CUR402
    scale<<<(n + 255) / 256, 256, 0, stream>>>(dev, n);
    ops->post(stream); // error: CUR402@5 "`ops->post` may call flush_and_sync(), which reaches cudaStreamSynchronize()"
    ops->fence(stream, done); // error: CUR402@5 "`ops->fence` may call wait_fence(), which reaches cudaEventSynchronize()"
    ops->drain(stream); // error: CUR402@5 "`ops->drain` may call drain_device(), which reaches cudaDeviceSynchronize()"
    ops->prepare(stream); // ok: CUR402
    ops->trace(stream); // ok: CUR402
    finish_stage(ops, stream); // error: CUR402@5 "finish_stage() may reach cudaStreamSynchronize(), prohibited while a stream captures"
    finish_stage_if(ops, stream, true); // ok: CUR402
    prepare_stage(ops, stream); // ok: CUR402
    cudaStreamEndCapture(stream, &graph);
    ops->post(stream); // ok: CUR402
    return graph;
}
