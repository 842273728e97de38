// Vulkan error checks for code that calls Vulkan through volk: volk's function pointers, then
// VK_CHECK, vkResultName and throwVkFailure from errors/vk_result.h (shared with interop, which
// has no volk).
#pragma once

#include <volk.h>

#include "vk_result.h"
