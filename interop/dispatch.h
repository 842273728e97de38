// interop's own table of the Vulkan functions it calls (internal, not installed). createContext
// (vulkan_device.cpp) loads it through the caller's vkGetInstanceProcAddr, or through the one of
// libvulkan.so.1 when the caller gave none: instance-level functions from vkGetInstanceProcAddr,
// device-level ones from the vkGetDeviceProcAddr it returns. interop's sources are built with
// VK_NO_PROTOTYPES, so every Vulkan call they make goes through this table.
#pragma once

#include "errors.h"
#include "estuary/interop/vulkan_device.h"

#include <memory>

// X(function, where it comes from): each list names what interop calls and, for messages, the
// Vulkan version or extension that provides it.
#define ESTUARY_INTEROP_INSTANCE_FUNCTIONS(X)                                                      \
    X(vkGetDeviceProcAddr, "Vulkan 1.0")                                                           \
    X(vkGetPhysicalDeviceProperties, "Vulkan 1.0")                                                 \
    X(vkGetPhysicalDeviceMemoryProperties, "Vulkan 1.0")                                           \
    X(vkGetPhysicalDeviceImageFormatProperties2, "Vulkan 1.1")                                     \
    X(vkGetPhysicalDeviceExternalBufferProperties, "Vulkan 1.1")                                   \
    X(vkGetPhysicalDeviceExternalSemaphoreProperties, "Vulkan 1.1")

#define ESTUARY_INTEROP_DEVICE_FUNCTIONS(X)                                                        \
    X(vkCreateImage, "Vulkan 1.0")                                                                 \
    X(vkDestroyImage, "Vulkan 1.0")                                                                \
    X(vkCreateImageView, "Vulkan 1.0")                                                             \
    X(vkDestroyImageView, "Vulkan 1.0")                                                            \
    X(vkCreateBuffer, "Vulkan 1.0")                                                                \
    X(vkDestroyBuffer, "Vulkan 1.0")                                                               \
    X(vkAllocateMemory, "Vulkan 1.0")                                                              \
    X(vkFreeMemory, "Vulkan 1.0")                                                                  \
    X(vkBindImageMemory, "Vulkan 1.0")                                                             \
    X(vkBindBufferMemory, "Vulkan 1.0")                                                            \
    X(vkGetImageMemoryRequirements2, "Vulkan 1.1")                                                 \
    X(vkGetBufferMemoryRequirements2, "Vulkan 1.1")                                                \
    X(vkCreateSemaphore, "Vulkan 1.0")                                                             \
    X(vkDestroySemaphore, "Vulkan 1.0")                                                            \
    X(vkGetSemaphoreCounterValue, "Vulkan 1.2")                                                    \
    X(vkCreateFence, "Vulkan 1.0")                                                                 \
    X(vkDestroyFence, "Vulkan 1.0")                                                                \
    X(vkWaitForFences, "Vulkan 1.0")                                                               \
    X(vkAllocateCommandBuffers, "Vulkan 1.0")                                                      \
    X(vkFreeCommandBuffers, "Vulkan 1.0")                                                          \
    X(vkBeginCommandBuffer, "Vulkan 1.0")                                                          \
    X(vkEndCommandBuffer, "Vulkan 1.0")                                                            \
    X(vkCmdPipelineBarrier2, "Vulkan 1.3")                                                         \
    X(vkQueueSubmit2, "Vulkan 1.3")

// The fd exports, from device extensions a device may lack: lavapipe has VK_KHR_external_memory_fd
// but not VK_KHR_external_semaphore_fd, and a device that only shares images with OpenGL needs no
// semaphore. They stay null where missing and throw when called (requireFunction).
#define ESTUARY_INTEROP_EXTENSION_FUNCTIONS(X)                                                     \
    X(vkGetMemoryFdKHR, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME)                                  \
    X(vkGetSemaphoreFdKHR, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME)

namespace estuary::interop {

struct Dispatch {
#define ESTUARY_INTEROP_MEMBER(name, from) PFN_##name name = nullptr;
    ESTUARY_INTEROP_INSTANCE_FUNCTIONS(ESTUARY_INTEROP_MEMBER)
    ESTUARY_INTEROP_DEVICE_FUNCTIONS(ESTUARY_INTEROP_MEMBER)
    ESTUARY_INTEROP_EXTENSION_FUNCTIONS(ESTUARY_INTEROP_MEMBER)
#undef ESTUARY_INTEROP_MEMBER
    // From the instance, and only where VulkanDevice::debugUtils says it is enabled.
    PFN_vkSetDebugUtilsObjectNameEXT vkSetDebugUtilsObjectNameEXT = nullptr;
    // libvulkan.so.1 while the table needs it (interop opened it itself); empty otherwise.
    std::shared_ptr<void> library;
};

// `getInstanceProcAddr`, or where it is null libvulkan.so.1's, opened into `library` (which keeps
// it open). Throws unsupported() when there is no loader to open.
PFN_vkGetInstanceProcAddr resolveGetInstanceProcAddr(PFN_vkGetInstanceProcAddr getInstanceProcAddr,
                                                     std::shared_ptr<void>& library);

// The unsupported() error for a function the device or instance does not offer.
Error missingFunction(const char* name, const char* from);

} // namespace estuary::interop
