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
    sim::OutputLayout layout = def.outputs({config.grid.width, config.grid.height, 1});
    for (const sim::ImageOutput& image : layout.images)
        if (image.depth != 1)
            throw unsupported(def.name + " writes a 3D image ('" + image.name +
                              "'), which this estuary cannot draw yet");
    return layout;
}

namespace {

class CpuBackend final : public SimBackend {
  public:
    CpuBackend(const Device& device, const BackendConfig& config)
        : device_(device), layout_(checkedOutputs(config)),
          sim_(config.simulation->createCpu({config.grid.width, config.grid.height, 1})),
          outputs_(createStagedOutputs(device, layout_, config.slots)),
          display_(config.simulation->visual.image), stampFrames_(config.stampFrameIndex),
          simMs_(config.slots, kNotMeasured) {
        try { // a throwing constructor runs no destructor
            if (faultPlan().allocFail)
                throwVkFailure(VK_ERROR_OUT_OF_DEVICE_MEMORY,
                               "vkAllocateMemory (ESTUARY_FAULT=alloc-fail)", __FILE__, __LINE__);
            sim_->reset(config.seed);
        } catch (...) {
            destroyStagedOutputs(device_, outputs_);
            throw;
        }
    }

    ~CpuBackend() override { destroyStagedOutputs(device_, outputs_); }

    const char* name() const override { return "cpu"; }
    uint32_t slotCount() const override { return uint32_t(outputs_.slots.size()); }
    const Image& outputImage(uint32_t slot, uint32_t index) const override {
        return outputs_.images[index].images[slot];
    }
    uint32_t displayIndex() const override { return display_; }
    const Buffer& outputBuffer(uint32_t slot, uint32_t index) const override {
        return outputs_.buffers[index][slot];
    }

    void simulate(uint64_t frame, const sim::ParamValues& params, int steps) override {
        const auto start = std::chrono::steady_clock::now();
        const uint32_t slot = uint32_t(frame % slotCount());
        sim_->step(params, steps);
        sim_->writeOutputs(outputs_.slots[slot].targets());
        if (stampFrames_) stagedTexel(outputs_, display_, slot, 0, 0)[0] = float(frame);
        if (probe_.active())
            probe_.value = probeValueOf(
                stagedTexel(outputs_, display_, slot, uint32_t(probe_.x), uint32_t(probe_.y)),
                layout_.images[display_].format);
        simMs_[slot] =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
    }

    void recordBeforeDraw(VkCommandBuffer cmd, uint64_t frame) override {
        recordStagedUpload(cmd, outputs_, uint32_t(frame % slotCount()));
    }
    void recordAfterDraw(VkCommandBuffer, uint64_t) override {}
    std::optional<VkSemaphoreSubmitInfo> drawWait(uint64_t) const override { return std::nullopt; }
    std::optional<VkSemaphoreSubmitInfo> drawSignal(uint64_t) const override {
        return std::nullopt;
    }

    SlotTimes finishedFrameTimes(uint64_t frame) override {
        SlotTimes t;
        t.simMs = simMs_[frame % simMs_.size()]; // host time: known once simulate() returned
        return t;
    }

    void requestProbe(int x, int y) override {
        probe_.request(x, y, layout_.images[display_].width, layout_.images[display_].height);
    }
    std::optional<ProbeValue> probeValue() const override { return probe_.value; }
    void brush(const sim::Brush& brush, const sim::ParamValues& params) override {
        sim_->brush(brush, params);
    }
    void reset(uint64_t seed) override { sim_->reset(seed); }
    void finish(uint64_t) override {}

  private:
    const Device& device_;
    sim::OutputLayout layout_;
    std::unique_ptr<sim::CpuSimulation> sim_;
    StagedOutputs outputs_;
    uint32_t display_ = 0;
    bool stampFrames_ = false;
    std::vector<double> simMs_;
    CellProbe probe_;
};

} // namespace

std::unique_ptr<SimBackend> createCpuBackend(const Device& device, const BackendConfig& config) {
    return std::make_unique<CpuBackend>(device, config);
}

} // namespace estuary
