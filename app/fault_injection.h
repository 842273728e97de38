// Faults on purpose, for the tests of the failure paths. ESTUARY_FAULT holds one or more of,
// comma-separated:
//   cuda-fault@N   the CUDA backend launches a kernel that writes through a bad pointer in frame N
//                  (a sticky CUDA error: the context is unusable from then on)
//   cuda-stall@N   the CUDA backend's stream waits, in frame N, for the draw of frame N + 1, which
//                  waits for frame N's writes: the two APIs deadlock until the frame wait times out
//                  and teardown releases CUDA's wait
//   alloc-fail     making the simulation's outputs fails as if the GPU had no memory left
//   device-lost@N  the draw submission of frame N reports VK_ERROR_DEVICE_LOST
//   vulkan-stall@N the draw submission of frame N waits for a semaphore nothing signals: a hang
//                  teardown cannot release, on any backend (lavapipe too)
// Nothing here runs unless the variable is set.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#ifdef ESTUARY_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace estuary {

struct FaultPlan {
    std::optional<uint64_t> cudaFault, cudaStall, deviceLost, vulkanStall;
    bool allocFail = false;
};

// Throws usageError naming the part it does not understand and listing the faults.
FaultPlan parseFaultPlan(std::string_view spec);
// ESTUARY_FAULT, parsed at the first call (a bad value throws there, exit 2).
const FaultPlan& faultPlan();

#ifdef ESTUARY_HAVE_CUDA
// Enqueues a kernel that stores through an invalid address (for cuda-fault).
void launchFaultingKernel(cudaStream_t stream);
#endif

} // namespace estuary
