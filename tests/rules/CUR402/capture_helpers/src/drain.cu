// Host-side waits of the solver, used between its iterations.
#include "graph_cache.h"

void drain_stream(cudaStream_t stream)
{
    cudaStreamSynchronize(stream);
}
