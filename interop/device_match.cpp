#include "estuary/interop/device_match.h"
#include "device_names.h"
#include "errors.h"

namespace estuary::interop {
namespace {

std::string versionName(uint32_t version) {
    return std::to_string(VK_API_VERSION_MAJOR(version)) + "." +
           std::to_string(VK_API_VERSION_MINOR(version));
}

std::string describeBoth(const std::vector<VulkanDeviceInfo>& vulkanDevices,
                         const std::vector<CudaDeviceInfo>& cudaDevices) {
    std::string s = "\n  Vulkan devices:";
    if (vulkanDevices.empty()) s += " none";
    for (const VulkanDeviceInfo& v : vulkanDevices)
        s += "\n    " + v.name + " (" + estuary::deviceTypeName(v.type) + ", Vulkan " +
             versionName(v.apiVersion) + ", UUID " + formatUuid(v.uuid.data()) +
             (v.deviceGroupSize != 1 ? ", in a device group of " + std::to_string(v.deviceGroupSize)
                                     : std::string()) +
             ")";
    s += "\n  CUDA devices:";
    if (cudaDevices.empty()) s += " none";
    for (const CudaDeviceInfo& c : cudaDevices)
        s += "\n    [" + std::to_string(c.ordinal) + "] " + c.name + " (sm_" +
             std::to_string(c.computeMajor) + std::to_string(c.computeMinor) + ", UUID " +
             formatUuid(c.uuid.data()) + ")";
    return s;
}

// Why a CUDA device whose Vulkan twin (same UUID) is `twin` cannot be used, or "" when it can.
std::string whyUnusable(const VulkanDeviceInfo* twin) {
    if (!twin) return "no Vulkan device has its UUID";
    if (twin->deviceGroupSize != 1)
        return "its Vulkan twin " + twin->name + " is part of a " +
               std::to_string(twin->deviceGroupSize) +
               "-GPU device group; CUDA interop needs a device group of size 1";
    if (twin->apiVersion < VK_API_VERSION_1_3)
        return "its Vulkan twin " + twin->name + " supports only Vulkan " +
               versionName(twin->apiVersion) + "; interop needs 1.3";
    return {};
}

} // namespace

std::vector<DevicePair> matchDevices(const std::vector<VulkanDeviceInfo>& vulkanDevices,
                                     const std::vector<CudaDeviceInfo>& cudaDevices,
                                     int requestedCuda) {
    const auto twinOf = [&](const CudaDeviceInfo& c) -> const VulkanDeviceInfo* {
        // A CPU implementation never shares memory with CUDA, whatever UUID it reports.
        for (const VulkanDeviceInfo& v : vulkanDevices)
            if (v.type != VK_PHYSICAL_DEVICE_TYPE_CPU && v.uuid == c.uuid) return &v;
        return nullptr;
    };
    bool requestedFound = false;
    std::vector<DevicePair> pairs;
    std::string reasons;
    for (const CudaDeviceInfo& c : cudaDevices) {
        if (requestedCuda >= 0 && c.ordinal != requestedCuda) continue;
        requestedFound = true;
        const VulkanDeviceInfo* twin = twinOf(c);
        const std::string why = whyUnusable(twin);
        if (why.empty())
            pairs.push_back(DevicePair{*twin, c});
        else
            reasons += "\n  CUDA device " + std::to_string(c.ordinal) + " (" + c.name + "): " + why;
    }
    if (requestedCuda >= 0 && !requestedFound)
        throw unsupported("CUDA device " + std::to_string(requestedCuda) +
                          " was asked for, but there is none (allowed: " +
                          (cudaDevices.empty() ? std::string("none")
                                               : "0.." + std::to_string(cudaDevices.size() - 1)) +
                          ")" + describeBoth(vulkanDevices, cudaDevices));
    if (pairs.empty())
        throw unsupported(
            std::string("no CUDA device can share memory with a Vulkan device (they "
                        "must be the same GPU, with the same UUID)") +
            (cudaDevices.empty() ? std::string(": there is no CUDA device") : ":" + reasons) +
            describeBoth(vulkanDevices, cudaDevices));
    return pairs;
}

std::string formatUuid(const uint8_t* uuid16) {
    return estuary::formatUuid(uuid16);
}

} // namespace estuary::interop
