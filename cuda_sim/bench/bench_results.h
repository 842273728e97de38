// The micro-benchmark's results (estuary_kernel_bench.cu measures them) and their JSON report.
// Plain C++, so the JSON library is compiled by the host compiler only.
#pragma once

#include "gray_scott_tiling.h"

#include <optional>
#include <string>
#include <vector>

namespace estuary::sim {

struct BenchDevice {
    std::string name;
    int smCount = 0;
    double peakGBs = 0; // HBM: memory clock x bus width x 2 (double data rate)
};

struct BenchResult {
    std::string kind; // step, mips, frame, jacobi or pressure; step3d, mips3d or frame3d (3D)
    std::string variant;
    int size = 0;                         // size x size grid (size³ for the 3D kinds)
    double us = 0;                        // per step, per output write or per frame
    std::optional<StepTiling> tiling;     // temporal steps
    std::optional<StepTiling3d> tiling3d; // temporal 3D steps
    double gbs = 0, percentOfPeak = 0;    // steps, counted at bytesPerCellStep
    int launches = 0;                     // output writes, sweeps
    double divergence = 0;                // pressure: RMS divergence left in the velocity
};

// Writes {device, bytesPerCellStep, stepsPerFrame, results} to `path` through a temporary file
// renamed over it, so a reader never sees half a report. Throws std::runtime_error on failure.
void writeBenchJson(const std::string& path, const BenchDevice& device, double bytesPerCellStep,
                    int stepsPerFrame, const std::vector<BenchResult>& results);

} // namespace estuary::sim
