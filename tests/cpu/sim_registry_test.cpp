// What every registered simulation promises through the generic interface, checked on its CPU
// reference: a consistent definition, deterministic seeding, outputs fully written at every level,
// a stepping that moves, parameter ranges that are safe end to end, a brush that acts only under
// itself. A new simulation gets these tests by being listed in app/simulations.cpp.
#include "half_float.h"
#include "simulations.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace estuary::sim {
namespace {

// Host memory for every output of a simulation on `grid`, as HostTargets; levels read back as
// floats whatever their format. Unwritten texels hold NaN.
class HostOutputs {
  public:
    HostOutputs(const SimDefinition& def, const GridSize& grid) : layout_(def.outputs(grid)) {
        for (const ImageOutput& image : layout_.images) {
            auto& levels = images_.emplace_back();
            const bool half = image.format == TexelFormat::RGBA16Float;
            for (uint32_t level = 0; level < levelCount(image); ++level) {
                const size_t values = size_t(mipSize(image.width, level)) *
                                      mipSize(image.height, level) * mipSize(image.depth, level) *
                                      channelCount(image.format);
                auto& bytes = levels.emplace_back(values * (half ? 2 : 4));
                for (size_t v = 0; v < values; ++v)
                    if (half)
                        std::memcpy(&bytes[2 * v], &kUnwrittenHalf, 2);
                    else
                        std::memcpy(&bytes[4 * v], &kUnwritten, 4);
            }
        }
        for (const BufferOutput& buffer : layout_.buffers)
            buffers_.emplace_back(buffer.bytes);
        for (auto& levels : images_) {
            auto& pointers = pointers_.emplace_back();
            for (auto& level : levels)
                pointers.push_back(level.data());
        }
        for (auto& pointers : pointers_)
            targets_.push_back({pointers});
        for (auto& buffer : buffers_)
            bufferPointers_.push_back(buffer.data());
    }
    HostTargets targets() const { return {targets_, bufferPointers_}; }
    std::vector<float> level(size_t image, size_t level) const {
        const std::vector<uint8_t>& bytes = images_[image][level];
        std::vector<float> values;
        if (layout_.images[image].format == TexelFormat::RGBA16Float) {
            for (size_t at = 0; at < bytes.size(); at += 2) {
                uint16_t h;
                std::memcpy(&h, &bytes[at], 2);
                values.push_back(halfToFloat(h));
            }
        } else {
            values.resize(bytes.size() / 4);
            std::memcpy(values.data(), bytes.data(), bytes.size());
        }
        return values;
    }
    size_t imageCount() const { return images_.size(); }
    size_t levelCountOf(size_t image) const { return images_[image].size(); }
    // Every channel of the texel at (x, y) (of slice 0) of level 0 of every image, one after
    // another.
    std::vector<float> at(uint32_t x, uint32_t y) const {
        std::vector<float> texel;
        for (size_t i = 0; i < images_.size(); ++i) {
            const ImageOutput& image = layout_.images[i];
            const size_t channels = channelCount(image.format);
            const std::vector<float> values = level(i, 0);
            const auto first =
                values.begin() + std::ptrdiff_t((size_t(y) * image.width + x) * channels);
            texel.insert(texel.end(), first, first + std::ptrdiff_t(channels));
        }
        return texel;
    }

    static constexpr float kUnwritten = std::numeric_limits<float>::quiet_NaN();
    static constexpr uint16_t kUnwrittenHalf = 0x7e00; // a quiet NaN

  private:
    OutputLayout layout_;
    std::vector<std::vector<std::vector<uint8_t>>> images_;
    std::vector<std::vector<void*>> pointers_;
    std::vector<HostImageTarget> targets_;
    std::vector<std::vector<uint8_t>> buffers_;
    std::vector<void*> bufferPointers_;
};

bool allFinite(const HostOutputs& out) {
    for (size_t i = 0; i < out.imageCount(); ++i)
        for (size_t l = 0; l < out.levelCountOf(i); ++l)
            for (float v : out.level(i, l))
                if (!std::isfinite(v)) return false;
    return true;
}

const GridSize kGrid{61, 37, 1}; // odd sizes: uneven mip halvings, wrapping at odd edges
// 3D simulations (dimensions == 3): unequal sides, and a depth that runs out of halvings first
// (10, 5, 2, 1, 1), so the last level's 2x2x2 blocks clamp in z.
const GridSize kVolumeGrid{24, 20, 10};

const GridSize& gridFor(const SimDefinition& def) {
    return def.dimensions == 3 ? kVolumeGrid : kGrid;
}

TEST(SimRegistry, EveryDefinitionIsConsistentAndNamesAreUnique) {
    std::set<std::string> names;
    ASSERT_GE(simulations().size(), 2u);
    for (const SimDefinition& def : simulations()) {
        SCOPED_TRACE(def.name);
        EXPECT_EQ(checkDefinition(def), "");
        EXPECT_TRUE(names.insert(def.name).second) << "name registered twice";
        EXPECT_EQ(findSimulation(def.name), &def);
        EXPECT_GT(def.bytesPerCellStep, 0.0) << "the benchmark's roofline needs it";
        EXPECT_GT(def.stepsPerFrame, 0);
        const GridSize& grid = gridFor(def);
        const OutputLayout layout = def.outputs(grid);
        ASSERT_FALSE(layout.images.empty());
        for (const ImageOutput& image : layout.images) {
            EXPECT_EQ(image.width, grid.width);
            EXPECT_EQ(image.height, grid.height);
            EXPECT_EQ(image.depth, grid.depth) << "a 3D simulation writes 3D images, a 2D one 2D";
            EXPECT_GT(texelBytes(image.format), 0u);
        }
        for (const Visual& view : def.views)
            EXPECT_LT(view.valueMin, view.valueMax) << view.name;
    }
    EXPECT_EQ(findSimulation("no such simulation"), nullptr);
}

TEST(SimRegistry, EveryOutputLevelIsWrittenAndTheSameSeedGivesTheSameOutputs) {
    for (const SimDefinition& def : simulations()) {
        SCOPED_TRACE(def.name);
        const GridSize& grid = gridFor(def);
        HostOutputs a(def, grid), b(def, grid), c(def, grid);
        const auto first = def.createCpu(grid), second = def.createCpu(grid);
        first->reset(7);
        second->reset(7);
        first->writeOutputs(a.targets());
        second->writeOutputs(b.targets());
        EXPECT_TRUE(allFinite(a)) << "a level was left unwritten (NaN sentinel) or is not finite";
        for (size_t i = 0; i < a.imageCount(); ++i)
            for (size_t l = 0; l < a.levelCountOf(i); ++l)
                EXPECT_EQ(a.level(i, l), b.level(i, l)) << "image " << i << " level " << l;
        second->reset(8);
        second->writeOutputs(c.targets());
        bool differs = false;
        for (size_t i = 0; i < a.imageCount(); ++i)
            differs = differs || a.level(i, 0) != c.level(i, 0);
        EXPECT_TRUE(differs) << "another seed gave the same outputs";
    }
}

TEST(SimRegistry, ZeroStepsChangeNothingAndStepsMoveTheField) {
    for (const SimDefinition& def : simulations()) {
        SCOPED_TRACE(def.name);
        const GridSize& grid = gridFor(def);
        HostOutputs before(def, grid), still(def, grid), after(def, grid);
        const auto sim = def.createCpu(grid);
        const ParamValues params = initialParams(def);
        sim->reset(3);
        sim->step(params, 20);
        sim->writeOutputs(before.targets());
        sim->step(params, 0);
        sim->writeOutputs(still.targets());
        sim->step(params, def.stepsPerFrame);
        sim->writeOutputs(after.targets());
        EXPECT_EQ(before.level(0, 0), still.level(0, 0));
        EXPECT_NE(before.level(0, 0), after.level(0, 0)) << "a frame's steps changed nothing";
    }
}

TEST(SimRegistry, EveryParameterIsSafeAcrossItsWholeRangeAndEveryPresetToo) {
    // Each parameter at its minimum and at its maximum (the others initial), and each preset:
    // 400 steps stay finite. A range that lets a user blow the simulation up is a bug in the table.
    for (const SimDefinition& def : simulations()) {
        std::vector<std::pair<std::string, ParamValues>> cases;
        for (size_t i = 0; i < def.params.size(); ++i)
            for (float value : {def.params[i].min, def.params[i].max}) {
                ParamValues values = initialParams(def);
                values[i] = value;
                cases.emplace_back(def.params[i].name + "=" + std::to_string(value), values);
            }
        for (const Preset& preset : def.presets) {
            ParamValues values = initialParams(def);
            ASSERT_EQ(applyPreset(def, preset, values), "");
            cases.emplace_back("preset " + preset.name, values);
        }
        for (const auto& [what, values] : cases) {
            SCOPED_TRACE(def.name + " " + what);
            const auto sim = def.createCpu(gridFor(def));
            sim->reset(5);
            sim->step(values, 400);
            HostOutputs out(def, gridFor(def));
            sim->writeOutputs(out.targets());
            EXPECT_TRUE(allFinite(out));
        }
    }
}

TEST(SimRegistry, BrushActsUnderItselfOnlyWithEitherButton) {
    for (const SimDefinition& def : simulations()) {
        if (def.brush.primary.empty()) continue;
        for (bool secondary : {false, true}) {
            if (secondary && def.brush.secondary.empty()) continue;
            SCOPED_TRACE(def.name + (secondary ? " secondary" : " primary"));
            // Brushes paint a 2D grid: the strokes below are placed on kGrid.
            ASSERT_EQ(def.dimensions, 2u) << "a 3D simulation with a brush needs a test of its own";
            const auto sim = def.createCpu(kGrid);
            const ParamValues params = initialParams(def);
            sim->reset(11);
            sim->step(params, 30);
            const Brush brush{20.0f, 18.0f, 5.0f, secondary};
            // The secondary button may undo the primary (Gray-Scott's erase): give it something
            // to act on.
            if (secondary) sim->brush(Brush{brush.x, brush.y, brush.radius, false}, params);
            HostOutputs before(def, kGrid), after(def, kGrid);
            sim->writeOutputs(before.targets());
            sim->brush(brush, params);
            sim->writeOutputs(after.targets());
            size_t changedInside = 0;
            for (uint32_t y = 0; y < kGrid.height; ++y)
                for (uint32_t x = 0; x < kGrid.width; ++x) {
                    const float dx = float(x) - brush.x, dy = float(y) - brush.y;
                    const bool outside = dx * dx + dy * dy > brush.radius * brush.radius;
                    const bool changed = before.at(x, y) != after.at(x, y);
                    if (outside)
                        EXPECT_FALSE(changed) << "changed outside the brush at " << x << "," << y;
                    else
                        changedInside += changed;
                }
            EXPECT_GT(changedInside, 0u) << "the brush changed nothing";
        }
    }
}

} // namespace
} // namespace estuary::sim
