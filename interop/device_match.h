// Finding the one physical GPU that both APIs see: the Vulkan physical device whose deviceUUID
// equals a CUDA device's uuid, byte for byte. The matching is a pure function over two lists, so it
// builds and is tested without CUDA or a GPU; cuda_devices.h fills the CUDA list from the runtime.
#pragma once

#include "context.h"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace estuary::interop {

struct CudaDeviceInfo {
    int ordinal = -1;
    std::string name;
    std::array<uint8_t, 16> uuid{};
    int computeMajor = 0;
    int computeMinor = 0;
};

struct DevicePair {
    PhysicalDeviceInfo vulkan;
    CudaDeviceInfo cuda;
};

// requestedCuda < 0 picks the first CUDA device that has a Vulkan twin. Throws unsupported() with
// both lists when there is no match, when `requestedCuda` is out of range, or when the Vulkan
// device belongs to a multi-GPU device group. CPU Vulkan devices are never matched.
DevicePair matchDevices(std::span<const PhysicalDeviceInfo> vulkanDevices,
                        std::span<const CudaDeviceInfo> cudaDevices, int requestedCuda);

// Device extensions the interop needs on the Vulkan side.
std::vector<const char*> requiredDeviceExtensions();

} // namespace estuary::interop
