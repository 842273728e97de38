#include "memory_budget.h"
#include "errors.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

namespace estuary {

uint64_t imageBytes(const sim::ImageOutput& image) {
    uint64_t bytes = 0;
    for (uint32_t level = 0; level < sim::levelCount(image); ++level)
        bytes += uint64_t(sim::mipSize(image.width, level)) * sim::mipSize(image.height, level) *
                 sim::mipSize(image.depth, level) * sim::texelBytes(image.format);
    return bytes;
}

MemoryNeed estimateMemory(const sim::SimDefinition& def, const sim::OutputLayout& layout,
                          uint64_t cells, uint32_t slots, BackendKind backend, uint64_t particles) {
    uint64_t images = 0, buffers = 0;
    for (const sim::ImageOutput& image : layout.images)
        images += imageBytes(image);
    for (const sim::BufferOutput& buffer : layout.buffers)
        buffers += buffer.bytes;
    const uint64_t state = uint64_t(def.stateBytesPerCell * double(cells) +
                                    def.stateBytesPerParticle * double(particles));
    MemoryNeed need;
    need.deviceImages = images * slots;
    switch (backend) {
    case BackendKind::Cuda: // shared outputs are Vulkan allocations the CUDA device holds too
        need.cudaMemory = state + (images + buffers) * slots;
        break;
    case BackendKind::HostCopy: // private CUDA outputs, pinned copies, host-side staging
        need.cudaMemory = state + images + buffers;
        need.hostMemory = images + buffers;
        need.hostVisible = (images + buffers) * slots;
        break;
    case BackendKind::Cpu:
        need.hostMemory = state;
        need.hostVisible = (images + buffers) * slots;
        break;
    }
    return need;
}

namespace {

std::string gib(uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.2f GiB", double(bytes) / double(1ull << 30));
    return text;
}

} // namespace

MemoryBudget memoryBudgetOf(const estuary_metrics& m) {
    MemoryBudget out;
    const auto freeOf = [](uint64_t budget, uint64_t usage) -> std::optional<uint64_t> {
        if (budget == 0) return std::nullopt;
        return budget > usage ? budget - usage : 0;
    };
    out.deviceLocal = freeOf(m.device_local_budget, m.device_local_usage);
    out.hostVisible = freeOf(m.host_visible_budget, m.host_visible_usage);
    out.deviceLocalSource = out.hostVisibleSource = "the viewer's memory budget";
    // One heap for both (lavapipe, integrated GPUs): the same budget and usage.
    out.sameHeap = m.device_local_budget == m.host_visible_budget &&
                   m.device_local_usage == m.host_visible_usage;
    if (m.cuda_total > 0) out.cuda = m.cuda_free;
    if (m.host_available > 0) out.host = m.host_available;
    return out;
}

void checkMemoryBudget(const MemoryNeed& need, const MemoryBudget& budget,
                       const std::string& what) {
    std::string problems;
    const auto check = [&](uint64_t needed, std::optional<uint64_t> free, const char* kind,
                           const std::string& source) {
        if (!free || needed <= *free) return;
        problems += std::string(problems.empty() ? "" : "; ") + kind + ": " + gib(needed) +
                    " needed, " + gib(*free) + " free (" + source + ")";
    };
    if (budget.sameHeap)
        check(need.deviceImages + need.hostVisible, budget.deviceLocal,
              "Vulkan memory (images and staging share one heap)", budget.deviceLocalSource);
    else {
        check(need.deviceImages, budget.deviceLocal, "device-local Vulkan memory",
              budget.deviceLocalSource);
        check(need.hostVisible, budget.hostVisible, "host-visible Vulkan memory",
              budget.hostVisibleSource);
    }
    check(need.cudaMemory, budget.cuda, "CUDA device memory", "cudaMemGetInfo");
    check(need.hostMemory, budget.host, "host memory", "MemAvailable");
    if (!problems.empty())
        throw unsupported(what + " does not fit in memory: " + problems +
                          "; try a smaller --size or fewer --frames-in-flight");
}

void checkRunFits(const Viewer& viewer, const SimRunConfig& config,
                  const sim::OutputLayout& layout) {
    const BackendKind kind = config.kind == RunKind::Cuda       ? BackendKind::Cuda
                             : config.kind == RunKind::HostCopy ? BackendKind::HostCopy
                                                                : BackendKind::Cpu;
    const uint64_t cells = uint64_t(config.grid.width) * config.grid.height * config.grid.depth;
    const uint32_t slots = viewer.info().frames_in_flight;
    const MemoryNeed need =
        estimateMemory(*config.simulation, layout, cells, slots, kind, config.particles);
    checkMemoryBudget(need, memoryBudgetOf(viewer.metrics()),
                      config.simulation->name + " on a " + gridName(config.grid) + " grid" +
                          (config.particles
                               ? " with " + std::to_string(config.particles) + " particles"
                               : std::string()) +
                          " and " + std::to_string(slots) + " frame(s) in flight");
}

} // namespace estuary
