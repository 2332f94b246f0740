// Batch solves: each problem of a batch is solved on its own OpenMP thread.
#include <vector>

#include "solver.h"

std::vector<Result> solve_batch(const std::vector<Problem> &problems) {
    std::vector<Result> results(problems.size());
#pragma omp parallel for schedule(dynamic)
    for (long i = 0; i < (long)problems.size(); ++i) {
        results[i] = solve_one(problems[i]);
    }
    return results;
}

std::vector<Result> solve_batch_private(const std::vector<Problem> &problems) {
    std::vector<Result> results(problems.size());
#pragma omp parallel for schedule(dynamic)
    for (long i = 0; i < (long)problems.size(); ++i) {
        results[i] = solve_one_private(problems[i]);
    }
    return results;
}

std::vector<Result> solve_in_order(const std::vector<Problem> &problems) {
    std::vector<Result> results(problems.size());
    for (size_t i = 0; i < problems.size(); ++i) {
        results[i] = solve_one_in_order(problems[i]);
    }
    return results;
}
