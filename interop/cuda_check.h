// CUDA error checks for interop code: CUDA_CHECK throws estuary::Error with the expression, the
// location and the error's name; cudaResultName is for callers that handle a code themselves.
#pragma once

#include "error.h"

#include <cuda_runtime_api.h>

#include <string>

namespace estuary::interop {

[[noreturn]] inline void throwCudaFailure(cudaError_t err, const char* expr, const char* file,
                                          int line) {
    throw Error(ExitCode::Runtime, std::string("CUDA call failed: ") + expr + " returned " +
                                       cudaGetErrorName(err) + " (" + cudaGetErrorString(err) +
                                       ") at " + file + ":" + std::to_string(line));
}

} // namespace estuary::interop

#define CUDA_CHECK(expr)                                                                           \
    do {                                                                                           \
        cudaError_t cudaCheckResult_ = (expr);                                                     \
        if (cudaCheckResult_ != cudaSuccess)                                                       \
            ::estuary::interop::throwCudaFailure(cudaCheckResult_, #expr, __FILE__, __LINE__);     \
    } while (0)
