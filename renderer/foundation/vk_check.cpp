#include "vk_check.h"

#include <sstream>

namespace estuary {

const char* vkResultName(VkResult result) {
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

void throwVkFailure(VkResult result, const char* expr, const char* file, int line) {
    std::ostringstream msg;
    msg << "Vulkan call failed: " << expr << " returned " << vkResultName(result) << " ("
        << static_cast<int>(result) << ") at " << file << ":" << line;
    // Extension/feature/format absence is a property of the environment, not a bug.
    const bool environment =
        result == VK_ERROR_EXTENSION_NOT_PRESENT || result == VK_ERROR_FEATURE_NOT_PRESENT ||
        result == VK_ERROR_FORMAT_NOT_SUPPORTED || result == VK_ERROR_INCOMPATIBLE_DRIVER ||
        result == VK_ERROR_LAYER_NOT_PRESENT;
    if (result == VK_ERROR_DEVICE_LOST)
        throw runtimeError("the Vulkan device was lost (a GPU fault, a hang or a driver reset; "
                           "with the CUDA backend, often a CUDA fault first): " +
                           msg.str());
    if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY)
        throw unsupported("out of GPU memory: " + msg.str() + "; " + kOutOfGpuMemoryHint);
    throw environment ? unsupported(msg.str()) : runtimeError(msg.str());
}

} // namespace estuary
