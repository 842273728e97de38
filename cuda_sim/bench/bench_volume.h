// estuary_kernel_bench's gray-scott-3d part (bench_volume.cu): the 3D step variants (the one-step
// column march, temporal passes of 1..4 steps) and output writes (level by level, or level 0
// fused with the mip tiles), each checked bit for bit against the CPU first, then timed.
#pragma once

#include "bench_results.h"

#include <cuda_runtime_api.h>

#include <functional>
#include <string>
#include <vector>

namespace estuary::sim {

struct VolumeBenchOptions {
    std::vector<int> sizes; // cubes, size³
    int blockY = 0;         // 0: chooseStepTiling3d's
    int slices = 0;         // 0: chooseStepTiling3d's
};

// Whether `command` is one of the volume commands: step3d, mips3d, frame3d, tune3d.
bool isVolumeCommand(const std::string& command);

// Runs `command` with `variant` (empty for tune3d) at every size, handing each result to `add`.
// Returns false when a variant differs from the CPU (the difference printed), and throws
// std::invalid_argument naming an unknown variant.
bool runVolumeBench(const std::string& command, const std::string& variant,
                    const VolumeBenchOptions& options, const BenchDevice& device,
                    cudaStream_t stream, const std::function<void(const BenchResult&)>& add);

} // namespace estuary::sim
