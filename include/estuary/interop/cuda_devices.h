// The CUDA devices the runtime sees, with their UUIDs, for matchDevices (device_match.h). An empty
// list comes with the reason (no driver, driver too old, no device) in words a user can act on.
#pragma once

#include "device_match.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace estuary::interop {

struct CudaDeviceList {
    std::vector<CudaDeviceInfo> devices;
    std::string problem; // why the list is empty: no driver, no device, ...
};

CudaDeviceList listCudaDevices();

// Free memory of CUDA device `ordinal` (cudaMemGetInfo), or nothing when it cannot be asked.
std::optional<uint64_t> cudaFreeMemory(int ordinal);

} // namespace estuary::interop
