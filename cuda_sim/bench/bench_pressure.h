// estuary_kernel_bench's fluid pressure part (bench_pressure.cu): the multigrid V-cycles checked
// bit for bit against the CPU's fluidMultigridProject, then the whole CUDA fluid step timed with
// either solver and the divergence each leaves in the flow reported, so that "fewer passes for the
// same leftover divergence" is a measurement.
#pragma once

#include "bench_results.h"

#include <cuda_runtime_api.h>

#include <functional>
#include <string>
#include <vector>

namespace estuary::sim {

// `variant` jacobi (v_cycles 0: the 40 sweeps) or multigrid (one V-cycle) at every size x size:
// after kPressureWarmSteps steps at the initial parameters, µs per step (BenchResult::us) and the
// RMS divergence of the velocity after the last (BenchResult::divergence). Returns false when the
// multigrid differs from the CPU (the difference printed); throws std::invalid_argument naming an
// unknown variant.
bool runPressureBench(const std::string& variant, const std::vector<int>& sizes,
                      cudaStream_t stream, const std::function<void(const BenchResult&)>& add);

} // namespace estuary::sim
