#include <cstdio>

void log_step(int step) {
    std::printf("step %d\n", step);
}
