#include "device_match.h"
#include "error.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>

namespace estuary::interop {

CudaDeviceList listCudaDevices() {
    CudaDeviceList list;
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        int runtime = 0;
        (void)cudaRuntimeGetVersion(&runtime);
        const std::string version =
            std::to_string(runtime / 1000) + "." + std::to_string((runtime % 1000) / 10);
        // Without any NVIDIA driver the runtime reports an "insufficient" one: say both readings.
        if (err == cudaErrorInsufficientDriver)
            list.problem = "no NVIDIA driver was found, or it is older than the CUDA " + version +
                           " runtime estuary was built with (cudaErrorInsufficientDriver)";
        else if (err == cudaErrorNoDevice)
            list.problem = "the NVIDIA driver reports no GPU (cudaErrorNoDevice)";
        else
            list.problem = std::string("the CUDA runtime found no usable device: ") +
                           cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
        return list;
    }
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
        CudaDeviceInfo info;
        info.ordinal = i;
        info.name = prop.name;
        std::memcpy(info.uuid.data(), prop.uuid.bytes, 16);
        info.computeMajor = prop.major;
        info.computeMinor = prop.minor;
        list.devices.push_back(info);
    }
    if (list.devices.empty()) list.problem = "the CUDA runtime reports no device";
    return list;
}

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
