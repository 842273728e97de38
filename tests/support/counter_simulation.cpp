#include "counter_simulation.h"

#include <cstring>

namespace estuary::test {
namespace {

sim::OutputLayout counterOutputs(const sim::GridSize& grid) {
    sim::OutputLayout layout;
    layout.images.push_back({"count", grid.width, grid.height, 1, sim::TexelFormat::R32Float, 0});
    layout.images.push_back({"pair", grid.width, grid.height, 1, sim::TexelFormat::RG32Float, 2});
    layout.buffers.push_back({"words", kCounterBufferWords * sizeof(uint32_t)});
    return layout;
}

class CpuCounter final : public sim::CpuSimulation {
  public:
    explicit CpuCounter(const sim::GridSize& grid) : layout_(counterOutputs(grid)) {}
    void reset(uint64_t) override { steps_ = 0; }
    void step(const sim::ParamValues&, int steps) override { steps_ += uint64_t(steps); }
    void writeOutputs(const sim::HostTargets& targets) override {
        const float n = counterImageValue(steps_);
        for (size_t i = 0; i < layout_.images.size(); ++i) {
            const sim::ImageOutput& image = layout_.images[i];
            auto* level0 = static_cast<float*>(targets.images[i].levels[0]);
            const size_t texels = size_t(image.width) * image.height;
            for (size_t t = 0; t < texels; ++t) {
                if (image.format == sim::TexelFormat::R32Float) {
                    level0[t] = n;
                } else {
                    level0[2 * t] = n;
                    level0[2 * t + 1] = -n;
                }
            }
            sim::writeMipChain(image, targets.images[i]);
        }
        auto* words = static_cast<uint32_t*>(targets.buffers[0]);
        for (uint32_t i = 0; i < kCounterBufferWords; ++i)
            words[i] = counterBufferWord(steps_, i);
    }

  private:
    sim::OutputLayout layout_;
    uint64_t steps_ = 0;
};

} // namespace

sim::SimDefinition counterSimulation() {
    sim::SimDefinition def;
    def.name = "counter";
    def.description = "test only: every output counts the steps taken";
    def.views = {{0, sim::Shading::Colormap, 0.0f, 1000.0f, "steps", "field.frag", "count"}};
    def.stepsPerFrame = 1;
    def.bytesPerCellStep = 1.0;
    def.outputs = counterOutputs;
    def.createCpu = [](const sim::GridSize& grid) -> std::unique_ptr<sim::CpuSimulation> {
        return std::make_unique<CpuCounter>(grid);
    };
    return def;
}

} // namespace estuary::test
