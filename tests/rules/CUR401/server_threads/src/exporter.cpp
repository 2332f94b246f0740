// Offline export: background threads capture graphs, one at a time in global mode (joined
// before the next starts), two at once only in thread-local mode.
#include <thread>

#include "exporter_graphs.h"

static void export_all(cudaStream_t stream, int shapes) {
    cudaSetDevice(0);
    for (int shape = 0; shape < shapes; ++shape) {
        capture_for_export(stream, shape);
    }
}

static void warm_private(cudaStream_t stream, int shapes) {
    cudaSetDevice(0);
    for (int shape = 0; shape < shapes; ++shape) {
        capture_private_copy(stream, shape);
    }
}

static void warm_one(cudaStream_t stream, int shape) {
    cudaSetDevice(0);
    capture_for_export(stream, shape);
}

void export_graphs(cudaStream_t stream, cudaStream_t other, int shapes) {
    std::thread exporter(export_all, stream, shapes);
    exporter.join();
    for (int i = 0; i < 4; ++i) {
        std::thread warm([=] { warm_private(other, shapes); });
        std::thread single(warm_one, other, i);
        warm.join();
        single.join();
    }
    std::thread first(warm_private, other, shapes);
    std::thread second(warm_private, stream, shapes);
    first.join();
    second.join();
}
