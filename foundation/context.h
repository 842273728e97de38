// The Vulkan foundation every other part builds on: instance (with an optional validation layer
// whose messages are counted), physical-device listing and picking, and the logical device with one
// graphics queue. Plain structs with createX/destroyX; the caller owns them and destroys them in
// reverse order of creation. volk is the loader: nothing here links libvulkan. MoveOnly, the base
// of every owning struct, comes from interop's types.h, shared with the library.
#pragma once

#include <volk.h>

#include "device_names.h"          // deviceTypeName, formatUuid
#include "estuary/interop/types.h" // MoveOnly

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace estuary {

// Counts validation-layer messages of warning or error severity. Tests and `--validate` treat any
// count above zero as failure. The first messages are kept for the report.
struct ValidationLog {
    std::atomic<uint32_t> count{0};
    std::mutex mutex;
    std::vector<std::string> firstMessages;
    bool echo = true; // print each message to stderr as it arrives (when there is no sink)
    // Where each message goes instead of stderr (the library's log callback), if set.
    std::function<void(bool isError, const char* text)> sink;
};

struct InstanceDesc {
    bool validation = false;
    std::function<void(bool isError, const char* text)> onMessage; // ValidationLog::sink
    std::vector<const char*> extensions; // e.g. what GLFW needs for surfaces
};

struct Instance : MoveOnly {
    VkInstance handle = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    bool debugUtils = false;
    ValidationLog* validation = nullptr; // owned; non-null only when the layer was asked for
};

Instance createInstance(const InstanceDesc& desc);
void destroyInstance(Instance& instance);
uint32_t validationMessageCount(const Instance& instance);

struct PhysicalDeviceInfo {
    VkPhysicalDevice handle = VK_NULL_HANDLE;
    VkPhysicalDeviceProperties properties{};
    std::array<uint8_t, VK_UUID_SIZE> uuid{};       // deviceUUID
    std::array<uint8_t, VK_UUID_SIZE> driverUuid{}; // who may share memory with it (OpenGL)
    uint32_t deviceGroupSize = 1;
};

std::vector<PhysicalDeviceInfo> listPhysicalDevices(VkInstance instance);
// "NVIDIA H200 (discrete GPU, Vulkan 1.4.312, UUID 5f1c…)"
std::string describePhysicalDevice(const PhysicalDeviceInfo& info);
// Discrete > integrated > virtual > CPU, among devices that support Vulkan 1.3. Throws
// unsupported() listing what was found when none qualifies.
PhysicalDeviceInfo pickDefaultPhysicalDevice(VkInstance instance);
// Whether the device offers the named extension (false where it cannot be asked).
bool deviceOffersExtension(VkPhysicalDevice physical, const char* name);

struct DeviceDesc {
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    std::vector<const char*> extensions;
    VkSurfaceKHR presentSurface = VK_NULL_HANDLE; // when set, the queue must also present to it
};

struct Device : MoveOnly {
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice handle = VK_NULL_HANDLE;
    uint32_t queueFamily = 0;
    VkQueue queue = VK_NULL_HANDLE;
    VkPhysicalDeviceProperties properties{};
    VkPhysicalDeviceMemoryProperties memory{};
    uint32_t timestampValidBits = 0;
    bool debugUtils = false;
    bool largePoints = false; // points wider than a pixel (enabled where the device has them)
    // shaderInt64 and shaderBufferInt64Atomics (enabled where offered): the points splat adds a
    // pixel's three channels with one 64-bit atomic instead of three 32-bit ones.
    bool int64Atomics = false;
    // VK_EXT_calibrated_timestamps (else the KHR) where the device offers it with a
    // CLOCK_MONOTONIC time domain, enabled for aligning GPU timestamps with the host's clock:
    // reads both clocks at once. Null where not offered; the name of the extension used.
    PFN_vkGetCalibratedTimestampsEXT getCalibratedTimestamps = nullptr;
    const char* calibratedTimestampsExtension = nullptr;
};

// Requires Vulkan 1.3 with dynamicRendering, synchronization2 and timelineSemaphore; a missing
// extension or feature throws unsupported() naming it.
Device createDevice(const Instance& instance, const DeviceDesc& desc);
void destroyDevice(Device& device);

void setDebugName(const Device& device, VkObjectType type, uint64_t handle, const char* name);

} // namespace estuary
