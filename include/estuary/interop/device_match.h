// Finding the one physical GPU that both APIs see: the Vulkan physical device whose deviceUUID
// equals a CUDA device's uuid, byte for byte. The matching is a pure function over two lists, so it
// builds and is tested without CUDA or a GPU; listVulkanDevices fills the Vulkan list through the
// caller's loader, cuda_devices.h the CUDA list from the runtime.
#pragma once

#include "types.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace estuary::interop {

struct VulkanDeviceInfo {
    VkPhysicalDevice handle = VK_NULL_HANDLE;
    std::string name;
    VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
    uint32_t apiVersion = 0;
    std::array<uint8_t, VK_UUID_SIZE> uuid{};       // deviceUUID
    std::array<uint8_t, VK_UUID_SIZE> driverUuid{}; // who may share memory with it (OpenGL)
    uint32_t deviceGroupSize = 1;
};

// Every physical device of `instance` with its UUIDs and device-group size, through
// `getInstanceProcAddr` (nullptr: libvulkan.so.1's).
std::vector<VulkanDeviceInfo> listVulkanDevices(VkInstance instance,
                                                PFN_vkGetInstanceProcAddr getInstanceProcAddr);

struct CudaDeviceInfo {
    int ordinal = -1;
    std::string name;
    std::array<uint8_t, 16> uuid{};
    int computeMajor = 0;
    int computeMinor = 0;
};

struct DevicePair {
    VulkanDeviceInfo vulkan;
    CudaDeviceInfo cuda;
};

// Every CUDA device that interop can use with Vulkan, in CUDA ordinal order: its twin has the same
// UUID, is not a CPU implementation, supports Vulkan 1.3 and is not part of a multi-GPU device
// group. `requestedCuda` >= 0 keeps that one device only. Throws unsupported() with both lists and
// each device's reason when none qualifies, or when `requestedCuda` names no CUDA device. A caller
// that cannot use the first pair (say, its device fails to open) tries the next.
std::vector<DevicePair> matchDevices(const std::vector<VulkanDeviceInfo>& vulkanDevices,
                                     const std::vector<CudaDeviceInfo>& cudaDevices,
                                     int requestedCuda);

// "5f1c0a9e-..." for messages.
std::string formatUuid(const uint8_t* uuid16);

} // namespace estuary::interop
