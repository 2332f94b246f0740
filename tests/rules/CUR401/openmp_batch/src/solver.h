#pragma once
#include <cuda_runtime.h>

struct Problem {
    const float *values;
    int size;
    int iterations;
};

struct Result {
    float objective;
};

Result solve_one(const Problem &problem);
Result solve_one_private(const Problem &problem);
Result solve_one_in_order(const Problem &problem);
