// CPU backend: the simulation's CPU reference runs on the host and writes each frame's outputs
// straight into the slot's mapped staging memory; the draw submission uploads the images.
#include "sim_backend.h"
#include "errors.h"
#include "fault_injection.h"
#include "staged_outputs.h"
#include "vk_check.h"

#include <chrono>
#include <vector>

namespace estuary {

sim::OutputLayout checkedOutputs(const BackendConfig& config) {
    const sim::SimDefinition& def = *config.simulation;
    if (config.grid.width == 0 || config.grid.height == 0)
        throw usageError(def.name + " needs a grid of at least 1x1");
    if (config.particles > 0 && def.particles.max == 0)
        throw usageError("--particles: " + def.name + " carries no particles");
    if (config.particles > def.particles.max)
        throw usageError("--particles " + std::to_string(config.particles) + " is more than " +
                         def.name + " takes (at most " + std::to_string(def.particles.max) + ")");
    if (def.dimensions == 3 && config.grid.depth == 1)
        throw usageError(def.name + " is a 3D simulation: its grid needs a depth (WxHxD)");
    if (def.dimensions != 3 && config.grid.depth != 1)
        throw usageError(def.name + " is a 2D simulation: its grid has no depth (WxH)");
    return def.outputs(gridSizeOf(config));
}

namespace {

class CpuBackend final : public StagedBackend {
  public:
    CpuBackend(const Device& device, const interop::Context& context, const BackendConfig& config)
        : StagedBackend(device, context, config),
          sim_(config.simulation->createCpu(gridSizeOf(config))) {
        if (faultPlan().allocFail)
            throwVkFailure(VK_ERROR_OUT_OF_DEVICE_MEMORY,
                           "vkAllocateMemory (ESTUARY_FAULT=alloc-fail)", __FILE__, __LINE__);
        sim_->reset(config.seed);
    }

    const char* name() const override { return "cpu"; }

    void simulate(uint64_t frame, const sim::ParamValues& params, int steps) override {
        using SteadyClock = std::chrono::steady_clock;
        const auto start = SteadyClock::now();
        const uint32_t slot = slotOf(frame);
        sim_->step(params, steps);
        const auto stepsEnd = SteadyClock::now();
        sim_->writeOutputs(outputs_.slots[slot].targets());
        publishSlot(frame, slot);
        const auto end = SteadyClock::now();
        simMs_[slot] = std::chrono::duration<double, std::milli>(end - start).count();
        recordSpans(slot, hostUs(start), hostUs(stepsEnd), hostUs(end));
    }

    void brush(const sim::Brush& brush, const sim::ParamValues& params) override {
        sim_->brush(brush, params);
    }
    void reset(uint64_t seed) override { sim_->reset(seed); }
    void finish(uint64_t) override {}

  private:
    std::unique_ptr<sim::CpuSimulation> sim_;
};

} // namespace

std::unique_ptr<SimBackend> createCpuBackend(const Device& device, const interop::Context& context,
                                             const BackendConfig& config) {
    return std::make_unique<CpuBackend>(device, context, config);
}

} // namespace estuary
