// Checking, before anything is allocated, that a run fits in memory: what a simulation's outputs,
// state and staging need for a grid and a number of frames in flight (pure, unit-tested), against
// what the GPU, its Vulkan heaps and the host have free. A run that cannot fit ends at once with
// exit 3 naming the need and the budget, instead of after minutes of allocating and swapping.
#pragma once

#include "estuary/estuary.hpp"
#include "sim_run.h"
#include "simulation.h"

#include <cstdint>
#include <optional>
#include <string>

namespace estuary {

enum class BackendKind { Cpu, Cuda, HostCopy };

struct MemoryNeed {
    uint64_t deviceImages = 0; // device-local Vulkan memory: the output images of every slot
    uint64_t hostVisible =
        0; // host-visible Vulkan memory: staging and output buffers (cpu, host-copy)
    uint64_t cudaMemory = 0; // CUDA allocations: state, shared outputs (cuda), private copies
    uint64_t hostMemory = 0; // plain host memory: CPU state, pinned copies
};

// Bytes of all levels of one image output.
uint64_t imageBytes(const sim::ImageOutput& image);

// The run's need: its outputs per slot and its state (per cell, and per particle for simulations
// that carry them).
MemoryNeed estimateMemory(const sim::SimDefinition& def, const sim::OutputLayout& layout,
                          uint64_t cells, uint32_t slots, BackendKind backend,
                          uint64_t particles = 0);

// What is free, as far as it can be known: per Vulkan heap (VK_EXT_memory_budget where the device
// has it, the heap's size otherwise, as the viewer's metrics report them), the CUDA device's free
// memory (cuda and host-copy) and the host's available memory.
struct MemoryBudget {
    std::optional<uint64_t> deviceLocal, hostVisible, cuda, host;
    std::string deviceLocalSource, hostVisibleSource; // e.g. "VK_EXT_memory_budget", "heap size"
    bool sameHeap = false; // device-local and host-visible memory share one heap (lavapipe)
};
MemoryBudget memoryBudgetOf(const estuary_metrics& metrics);

// Throws unsupported() (exit 3) naming `what`, each part that does not fit and its budget.
void checkMemoryBudget(const MemoryNeed& need, const MemoryBudget& budget, const std::string& what);

// Before a run allocates anything: its need (outputs in every slot, state) against what the
// viewer's device, CUDA and the host have free; exit 3 naming the run when it does not fit.
void checkRunFits(const Viewer& viewer, const SimRunConfig& config,
                  const sim::OutputLayout& layout);

} // namespace estuary
