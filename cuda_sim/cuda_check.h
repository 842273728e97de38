// Private to cuda_sim: CUDA_SIM_CHECK(expr) throws std::runtime_error naming the expression, the
// file and line, and the CUDA error's name and text when a runtime call (or, through
// cudaGetLastError, a kernel launch) fails. Used by the .cu sources only.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace estuary::sim::detail {

[[noreturn]] inline void throwCudaError(cudaError_t error, const char* expression, const char* file,
                                        int line) {
    throw std::runtime_error(std::string(expression) + " failed at " + file + ":" +
                             std::to_string(line) + ": " + cudaGetErrorName(error) + " (" +
                             cudaGetErrorString(error) + ")");
}

} // namespace estuary::sim::detail

#define CUDA_SIM_CHECK(expr)                                                                       \
    do {                                                                                           \
        const cudaError_t cudaSimCheckError_ = (expr);                                             \
        if (cudaSimCheckError_ != cudaSuccess)                                                     \
            ::estuary::sim::detail::throwCudaError(cudaSimCheckError_, #expr, __FILE__, __LINE__); \
    } while (0)
