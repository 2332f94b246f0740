#include "streams.h"

void wait_for(cudaStream_t stream) {
    cudaStreamSynchronize(stream);
}
