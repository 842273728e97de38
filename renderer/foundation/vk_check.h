// Vulkan error checks: VK_CHECK throws estuary::Error (errors.h) naming the expression, the
// location and the result's name; callers that handle a code themselves (VK_SUBOPTIMAL_KHR,
// VK_TIMEOUT) take the VkResult and call throwVkFailure for the rest. Absent extensions, features
// and formats and a full device memory are properties of the environment (exit 3); the rest is a
// runtime failure.
#pragma once

#include "errors.h"

#include <volk.h>

namespace estuary {

const char* vkResultName(VkResult result);

[[noreturn]] void throwVkFailure(VkResult result, const char* expr, const char* file, int line);

} // namespace estuary

#define VK_CHECK(expr)                                                                             \
    do {                                                                                           \
        VkResult vkCheckResult_ = (expr);                                                          \
        if (vkCheckResult_ != VK_SUCCESS)                                                          \
            ::estuary::throwVkFailure(vkCheckResult_, #expr, __FILE__, __LINE__);                  \
    } while (0)
