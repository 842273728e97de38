// The one CUDA check of the project, used by interop/ and cuda_sim/ alike: CUDA_CHECK(expr) throws
// estuary::Error naming the expression, the location and the error's name and text. Running out of
// device memory is a property of the environment (exit 3, with advice); every other failure is a
// runtime error (exit 1). Header-only; needs only <cuda_runtime_api.h>.
#pragma once

#include "errors.h"

#include <cuda_runtime_api.h>

#include <string>

namespace estuary {

// Errors after which the CUDA context is unusable: every later call returns them too. They come
// from a kernel that faulted (or the device), often reported by an unrelated later call.
inline bool isStickyCudaError(cudaError_t err) {
    switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
        return true;
    default:
        return false;
    }
}

inline Error cudaFailure(cudaError_t err, const char* expr, const char* file, int line) {
    std::string what = std::string("CUDA call failed: ") + expr + " returned " +
                       cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ") at " + file +
                       ":" + std::to_string(line);
    if (err == cudaErrorMemoryAllocation)
        return outOfMemory("out of GPU memory: " + what + "; " + kOutOfGpuMemoryHint);
    if (isStickyCudaError(err))
        return deviceLost("CUDA faulted and its context is unusable (a sticky error, usually from "
                          "a kernel that faulted earlier than this call): " +
                          what);
    return runtimeError(what);
}

} // namespace estuary

#define CUDA_CHECK(expr)                                                                           \
    do {                                                                                           \
        const cudaError_t cudaCheckResult_ = (expr);                                               \
        if (cudaCheckResult_ != cudaSuccess)                                                       \
            throw ::estuary::cudaFailure(cudaCheckResult_, #expr, __FILE__, __LINE__);             \
    } while (0)
