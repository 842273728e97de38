#include "estuary/interop/cuda_devices.h"

#include <cuda_runtime_api.h>

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

std::optional<uint64_t> cudaFreeMemory(int ordinal) {
    size_t free = 0, total = 0;
    if (cudaSetDevice(ordinal) != cudaSuccess || cudaMemGetInfo(&free, &total) != cudaSuccess)
        return std::nullopt;
    return uint64_t(free);
}

} // namespace estuary::interop
