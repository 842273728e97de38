// Vulkan results as estuary::Error, for the foundation (through volk) and interop (through its own
// function table) alike: VK_CHECK throws naming the expression, the location and the result's
// name; callers that handle a code themselves (VK_SUBOPTIMAL_KHR, VK_TIMEOUT) take the VkResult
// and call throwVkFailure for the rest. Absent extensions, features and formats and a full device
// memory are properties of the environment (exit 3); the rest is a runtime failure. Header-only;
// needs the Vulkan types only (<vulkan/vulkan_core.h> unless the includer's volk.h or vulkan.h
// came first), never a loader.
#pragma once

#include "errors.h"

#ifndef VULKAN_CORE_H_
#include <vulkan/vulkan_core.h>
#endif

#include <string>

namespace estuary {

inline const char* vkResultName(VkResult result) {
    switch (result) {
#define ESTUARY_RESULT_CASE(r)                                                                     \
    case r:                                                                                        \
        return #r;
        ESTUARY_RESULT_CASE(VK_SUCCESS)
        ESTUARY_RESULT_CASE(VK_NOT_READY)
        ESTUARY_RESULT_CASE(VK_TIMEOUT)
        ESTUARY_RESULT_CASE(VK_EVENT_SET)
        ESTUARY_RESULT_CASE(VK_EVENT_RESET)
        ESTUARY_RESULT_CASE(VK_INCOMPLETE)
        ESTUARY_RESULT_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
        ESTUARY_RESULT_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        ESTUARY_RESULT_CASE(VK_ERROR_INITIALIZATION_FAILED)
        ESTUARY_RESULT_CASE(VK_ERROR_DEVICE_LOST)
        ESTUARY_RESULT_CASE(VK_ERROR_MEMORY_MAP_FAILED)
        ESTUARY_RESULT_CASE(VK_ERROR_LAYER_NOT_PRESENT)
        ESTUARY_RESULT_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
        ESTUARY_RESULT_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
        ESTUARY_RESULT_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
        ESTUARY_RESULT_CASE(VK_ERROR_TOO_MANY_OBJECTS)
        ESTUARY_RESULT_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
        ESTUARY_RESULT_CASE(VK_ERROR_FRAGMENTED_POOL)
        ESTUARY_RESULT_CASE(VK_ERROR_UNKNOWN)
        ESTUARY_RESULT_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
        ESTUARY_RESULT_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
        ESTUARY_RESULT_CASE(VK_ERROR_FRAGMENTATION)
        ESTUARY_RESULT_CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
        ESTUARY_RESULT_CASE(VK_PIPELINE_COMPILE_REQUIRED)
        ESTUARY_RESULT_CASE(VK_ERROR_SURFACE_LOST_KHR)
        ESTUARY_RESULT_CASE(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR)
        ESTUARY_RESULT_CASE(VK_SUBOPTIMAL_KHR)
        ESTUARY_RESULT_CASE(VK_ERROR_OUT_OF_DATE_KHR)
        ESTUARY_RESULT_CASE(VK_ERROR_VALIDATION_FAILED_EXT)
#undef ESTUARY_RESULT_CASE
    default:
        return "VK_RESULT_UNKNOWN";
    }
}

// The error a failed call `expr` at file:line stands for.
inline Error vkFailure(VkResult result, const char* expr, const char* file, int line) {
    const std::string what = std::string("Vulkan call failed: ") + expr + " returned " +
                             vkResultName(result) + " (" + std::to_string(int(result)) + ") at " +
                             file + ":" + std::to_string(line);
    if (result == VK_ERROR_DEVICE_LOST)
        return deviceLost("the Vulkan device was lost (a GPU fault, a hang or a driver reset; "
                          "with the CUDA backend, often a CUDA fault first): " +
                          what);
    if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY)
        return outOfMemory("out of GPU memory: " + what + "; " + kOutOfGpuMemoryHint);
    if (result == VK_ERROR_OUT_OF_HOST_MEMORY) return outOfMemory("out of host memory: " + what);
    // Extension/feature/format absence is a property of the environment, not a bug.
    const bool environment =
        result == VK_ERROR_EXTENSION_NOT_PRESENT || result == VK_ERROR_FEATURE_NOT_PRESENT ||
        result == VK_ERROR_FORMAT_NOT_SUPPORTED || result == VK_ERROR_INCOMPATIBLE_DRIVER ||
        result == VK_ERROR_LAYER_NOT_PRESENT;
    return environment ? unsupported(what) : runtimeError(what);
}

[[noreturn]] inline void throwVkFailure(VkResult result, const char* expr, const char* file,
                                        int line) {
    throw vkFailure(result, expr, file, line);
}

} // namespace estuary

#define VK_CHECK(expr)                                                                             \
    do {                                                                                           \
        const VkResult vkCheckResult_ = (expr);                                                    \
        if (vkCheckResult_ != VK_SUCCESS)                                                          \
            ::estuary::throwVkFailure(vkCheckResult_, #expr, __FILE__, __LINE__);                  \
    } while (0)
