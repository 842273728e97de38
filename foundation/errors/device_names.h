// Names of Vulkan devices for messages, for the foundation and interop alike: the device type in
// words and a UUID in its usual 8-4-4-4-12 spelling. Header-only; needs the Vulkan types only.
#pragma once

#ifndef VULKAN_CORE_H_
#include <vulkan/vulkan_core.h>
#endif

#include <cstdint>
#include <string>

namespace estuary {

inline const char* deviceTypeName(VkPhysicalDeviceType type) {
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
        return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
        return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        return "CPU";
    default:
        return "other";
    }
}

inline std::string formatUuid(const uint8_t* uuid16) {
    static const char* hex = "0123456789abcdef";
    std::string s;
    for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
        s += hex[uuid16[i] >> 4];
        s += hex[uuid16[i] & 15];
    }
    return s;
}

} // namespace estuary
