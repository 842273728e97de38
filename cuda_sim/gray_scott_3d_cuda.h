// gray-scott-3d's CUDA implementation with a chosen step tiling, for tests and benchmarks that run
// every tiling; the simulation's definition (grayScott3dSimulation) creates it with
// chooseStepTiling3d's. Compiled by nvcc only.
#pragma once

#include "cuda_simulation.h"
#include "gray_scott_tiling.h"

#include <memory>
#include <optional>

namespace estuary::sim {

// nullopt: chooseStepTiling3d's for the grid and the current device. Throws std::invalid_argument
// for a tiling the kernels cannot run (validTiling3d) and estuary::Error for a bad grid.
std::unique_ptr<CudaSimulation>
createCudaGrayScott3d(const GridSize& grid, std::optional<StepTiling3d> tiling = std::nullopt);

} // namespace estuary::sim
