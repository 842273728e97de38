#include "device_match.h"
#include "errors.h"

#include <algorithm>
#include <cstring>

namespace estuary::interop {

namespace {

std::string describeBoth(std::span<const PhysicalDeviceInfo> vulkanDevices,
                         std::span<const CudaDeviceInfo> cudaDevices) {
    std::string s = "\n  Vulkan devices:";
    if (vulkanDevices.empty()) s += " none";
    for (const auto& v : vulkanDevices)
        s += "\n    " + describePhysicalDevice(v);
    s += "\n  CUDA devices:";
    if (cudaDevices.empty()) s += " none";
    for (const auto& c : cudaDevices)
        s += "\n    [" + std::to_string(c.ordinal) + "] " + c.name + " (sm_" +
             std::to_string(c.computeMajor) + std::to_string(c.computeMinor) + ", UUID " +
             formatUuid(c.uuid.data()) + ")";
    return s;
}

} // namespace

DevicePair matchDevices(std::span<const PhysicalDeviceInfo> vulkanDevices,
                        std::span<const CudaDeviceInfo> cudaDevices, int requestedCuda) {
    auto twinOf = [&](const CudaDeviceInfo& c) -> const PhysicalDeviceInfo* {
        for (const auto& v : vulkanDevices)
            if (v.properties.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU && v.uuid == c.uuid)
                return &v;
        return nullptr;
    };
    const CudaDeviceInfo* chosen = nullptr;
    if (requestedCuda >= 0) {
        for (const auto& c : cudaDevices)
            if (c.ordinal == requestedCuda) chosen = &c;
        if (!chosen)
            throw unsupported("--device " + std::to_string(requestedCuda) +
                              " does not name a CUDA device (allowed: 0.." +
                              std::to_string(int(cudaDevices.size()) - 1) + ")" +
                              describeBoth(vulkanDevices, cudaDevices));
    } else {
        for (const auto& c : cudaDevices)
            if (!chosen && twinOf(c)) chosen = &c;
    }
    const PhysicalDeviceInfo* twin = chosen ? twinOf(*chosen) : nullptr;
    if (!twin)
        throw unsupported(std::string("no Vulkan device has the UUID of ") +
                          (chosen ? "CUDA device " + std::to_string(chosen->ordinal)
                                  : std::string("any CUDA device")) +
                          "; CUDA and Vulkan must run on the same GPU" +
                          describeBoth(vulkanDevices, cudaDevices));
    if (twin->deviceGroupSize != 1)
        throw unsupported(std::string(twin->properties.deviceName) + " is part of a " +
                          std::to_string(twin->deviceGroupSize) +
                          "-GPU device group; CUDA interop needs a device group of size 1");
    if (twin->properties.apiVersion < VK_API_VERSION_1_3)
        throw unsupported(std::string(twin->properties.deviceName) +
                          " does not support Vulkan 1.3");
    return DevicePair{*twin, *chosen};
}

std::vector<const char*> requiredDeviceExtensions() {
    return {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME};
}

} // namespace estuary::interop
