// How interop reaches a Vulkan device it did not create: the caller's instance, physical and
// logical device, one queue, and the loader entry point its functions come from. interop loads
// the few device functions it calls into a table of its own (createContext), so it works beside
// any loader setup: the application's own vkGetInstanceProcAddr, volk with per-device tables, or
// plain libvulkan. Nothing global is touched.
//
// The device must have been created with requiredDeviceExtensions() enabled and the features
// timelineSemaphore and synchronization2 (Vulkan 1.3 core). interop records its barriers with
// vkCmdPipelineBarrier2 into command buffers of the caller's, and submits on `queue` only when
// rings are created (one blocking hand-over of their images to CUDA).
#pragma once

#include "types.h"

#include <memory>
#include <string>
#include <vector>

namespace estuary::interop {

struct VulkanDevice {
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physicalDevice = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    uint32_t queueFamily = 0;
    VkQueue queue = VK_NULL_HANDLE;
    // The loader's entry point the device's functions are found through; nullptr: the one
    // exported by libvulkan.so.1, opened at run time.
    PFN_vkGetInstanceProcAddr getInstanceProcAddr = nullptr;
    // VK_EXT_debug_utils is enabled on the instance: interop names what it creates.
    bool debugUtils = false;
};

// interop's table of the Vulkan functions it calls (defined inside interop).
struct Dispatch;

// A device as interop uses it: the caller's handles, the device's memory types and interop's
// function table. Cheap to copy; lives as long as the VkDevice.
struct Context {
    VulkanDevice vulkan;
    VkPhysicalDeviceMemoryProperties memory{};
    std::string deviceName;
    std::shared_ptr<const Dispatch> fn;
};

// Loads the table and reads the device's memory properties. Throws unsupported() naming the
// function and where it comes from when one interop needs is missing (Vulkan 1.3 not reached). The
// fd exports of requiredDeviceExtensions() are looked up too, but a device without one (OpenGL
// sharing needs no semaphores) fails only where it is used: exportMemoryFd / exportSemaphoreFd
// throw unsupported() naming the function and its extension.
Context createContext(const VulkanDevice& device);

// Device extensions interop needs (enable them when creating the VkDevice).
std::vector<const char*> requiredDeviceExtensions();

} // namespace estuary::interop
