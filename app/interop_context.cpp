#include "interop_context.h"

namespace estuary {

interop::Context interopContext(const Instance& instance, const Device& device) {
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
