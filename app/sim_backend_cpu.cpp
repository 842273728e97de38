// CPU backend: the same Gray-Scott stencil on the host; each frame's field and its mip chain are
// written into the slot's staging buffer and uploaded by the draw submission itself.
#include "sim_backend.h"
#include "cpu_gray_scott.h"
#include "staged_field.h"

#include <chrono>
#include <vector>

namespace estuary {
namespace {

class CpuBackend final : public SimBackend {
  public:
    CpuBackend(const Device& device, const BackendConfig& config)
        : device_(device), sim_(int(config.grid.width), int(config.grid.height), config.seed),
          field_(createStagedField(device, config.grid, config.slots)),
          stampFrames_(config.stampFrameIndex), simMs_(config.slots, kNotMeasured) {}

    ~CpuBackend() override { destroyStagedField(device_, field_); }

    const char* name() const override { return "cpu"; }
    uint32_t slotCount() const override { return uint32_t(field_.images.size()); }
    const Image& fieldImage(uint32_t slot) const override { return field_.images[slot]; }
    VkSemaphore drawnTimeline() const override { return VK_NULL_HANDLE; }

    void simulate(uint64_t frame, const sim::GrayScottParams& params) override {
        const auto start = std::chrono::steady_clock::now();
        const uint32_t slot = uint32_t(frame % field_.images.size());
        sim_.step(params, params.stepsPerFrame);
        if (probe_.active()) probe_.value = sim_.v()[probe_.index(sim_.width())];
        std::vector<float*>& levels = levelPointers_;
        levels.resize(field_.levels);
        for (uint32_t level = 0; level < field_.levels; ++level)
            levels[level] = stagedLevel(field_, slot, level);
        sim::writeFieldMipChain(sim_.v().data(), sim_.width(), sim_.height(), int(field_.levels),
                                levels.data());
        if (stampFrames_) levels[0][0] = float(frame);
        simMs_[slot] =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
    }

    void recordBeforeDraw(VkCommandBuffer cmd, uint64_t frame) override {
        recordStagedUpload(cmd, field_, uint32_t(frame % field_.images.size()));
    }
    void recordAfterDraw(VkCommandBuffer, uint64_t) override {}
    std::optional<VkSemaphoreSubmitInfo> drawWait(uint64_t) const override { return std::nullopt; }

    SlotTimes finishedFrameTimes(uint64_t frame) override {
        SlotTimes t;
        t.simMs = simMs_[frame % simMs_.size()]; // host time: known once simulate() returned
        return t;
    }

    void requestProbe(int x, int y) override { probe_.request(x, y, sim_.width(), sim_.height()); }
    std::optional<float> probeValue() const override { return probe_.value; }
    void paint(const sim::Brush& brush) override { sim_.paint(brush); }
    void reset(uint64_t seed) override { sim_.reset(seed); }
    void finish() override {}

  private:
    const Device& device_;
    sim::CpuGrayScott sim_;
    StagedField field_;
    bool stampFrames_ = false;
    std::vector<double> simMs_;
    std::vector<float*> levelPointers_;
    CellProbe probe_;
};

} // namespace

std::unique_ptr<SimBackend> createCpuBackend(const Device& device, VkCommandPool,
                                             const BackendConfig& config) {
    return std::make_unique<CpuBackend>(device, config);
}

} // namespace estuary
