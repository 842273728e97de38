// The foundation's Device as interop sees it, for the tests that drive interop directly: an
// interop::Context over the same instance, device and queue, its functions loaded through volk's
// vkGetInstanceProcAddr. It owns no Vulkan object.
#pragma once

#include "context.h"
#include "estuary/interop/vulkan_device.h"

namespace estuary {

inline interop::Context interopContext(const Instance& instance, const Device& device) {
    interop::VulkanDevice vulkan;
    vulkan.instance = instance.handle;
    vulkan.physicalDevice = device.physical;
    vulkan.device = device.handle;
    vulkan.queueFamily = device.queueFamily;
    vulkan.queue = device.queue;
    vulkan.getInstanceProcAddr = vkGetInstanceProcAddr; // volk's, set by createInstance
    vulkan.debugUtils = device.debugUtils;
    return interop::createContext(vulkan);
}

} // namespace estuary
