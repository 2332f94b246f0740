// Two logging back ends define log_step; only one of them synchronizes. Which one a call
// reaches depends on the link, so neither is followed.
#include <cstdio>
#include <cuda_runtime.h>

void log_step(int step) {
    cudaDeviceSynchronize();
    std::printf("step %d\n", step);
}
