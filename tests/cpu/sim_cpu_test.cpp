// The CPU Gray-Scott simulation (the reference the CUDA backend is compared with): seeding,
// stepping, the brush and the presets, and the mip chain every simulation's images carry, each
// against an invariant or a hand-computed value.
#include "cpu_gray_scott.h"
#include "mip_chain.h"
#include "stencil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace estuary::sim {
namespace {

constexpr GrayScottParams kCoral{0.0545f, 0.062f, 1.0f, 0.5f, 1.0f};

std::vector<float> roll(const std::vector<float>& field, int w, int h, int dx, int dy) {
    std::vector<float> rolled(field.size());
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            const int tx = ((x + dx) % w + w) % w;
            const int ty = ((y + dy) % h + h) % h;
            rolled[static_cast<size_t>(ty) * w + tx] = field[static_cast<size_t>(y) * w + x];
        }
    }
    return rolled;
}

double sum(const std::vector<float>& field) {
    return std::accumulate(field.begin(), field.end(), 0.0);
}

size_t countNonzero(const std::vector<float>& field) {
    size_t n = 0;
    for (float value : field)
        n += value != 0.0f ? 1 : 0;
    return n;
}

TEST(SimCpuSeed, SameSeedGivesIdenticalFields) {
    const CpuGrayScott a(96, 64, 42);
    CpuGrayScott b(96, 64, 7);
    b.reset(42);
    EXPECT_EQ(a.u(), b.u());
    EXPECT_EQ(a.v(), b.v());
}

TEST(SimCpuSeed, DifferentSeedsGiveDifferentFields) {
    const CpuGrayScott a(96, 64, 1);
    const CpuGrayScott b(96, 64, 2);
    EXPECT_NE(a.v(), b.v());
}

TEST(SimCpuSeed, PlantsNoisyPatchesOnRestBackground) {
    const CpuGrayScott sim(256, 256, 9);
    size_t patchCells = 0;
    for (size_t i = 0; i < sim.v().size(); ++i) {
        const float u = sim.u()[i], v = sim.v()[i];
        if (v == 0.0f) {
            ASSERT_EQ(u, 1.0f) << "background cell " << i;
            continue;
        }
        ++patchCells;
        ASSERT_NEAR(u, 0.5f, 0.005f) << "patch cell " << i;
        ASSERT_NEAR(v, 0.25f, 0.005f) << "patch cell " << i;
    }
    // 10..20 squares of side 13..25 at 256^2 (overlaps allowed): at least one full small square,
    // and far from covering the grid.
    EXPECT_GE(patchCells, 13u * 13u);
    EXPECT_LE(patchCells, 20u * 25u * 25u);
    // The noise is there: patch values are not all equal.
    std::vector<float> patchV;
    for (float v : sim.v())
        if (v != 0.0f) patchV.push_back(v);
    EXPECT_NE(*std::min_element(patchV.begin(), patchV.end()),
              *std::max_element(patchV.begin(), patchV.end()));
}

TEST(SimCpuStep, StaysFiniteAndInUnitRangeFor2000Steps) {
    CpuGrayScott sim(128, 128, 3);
    sim.step(GrayScottParams{}, 2000);
    for (size_t i = 0; i < sim.v().size(); ++i) {
        ASSERT_TRUE(std::isfinite(sim.u()[i]) && std::isfinite(sim.v()[i])) << "cell " << i;
        ASSERT_GE(sim.u()[i], 0.0f);
        ASSERT_LE(sim.u()[i], 1.0f);
        ASSERT_GE(sim.v()[i], 0.0f);
        ASSERT_LE(sim.v()[i], 1.0f);
    }
    EXPECT_GT(countNonzero(sim.v()), 0u) << "the pattern died out: the test would prove nothing";
}

TEST(SimCpuStep, TranslatedFieldEvolvesIntoTranslatedResult) {
    const int w = 96, h = 64, dx = 37, dy = -21;
    CpuGrayScott original(w, h, 5);
    CpuGrayScott shifted(w, h, 0);
    shifted.setField(roll(original.u(), w, h, dx, dy), roll(original.v(), w, h, dx, dy));
    original.step(kCoral, 300);
    shifted.step(kCoral, 300);
    EXPECT_EQ(shifted.u(), roll(original.u(), w, h, dx, dy));
    EXPECT_EQ(shifted.v(), roll(original.v(), w, h, dx, dy));
}

TEST(SimCpuStep, RestStateIsFixedPoint) {
    // u = 1, v = 0 is the trivial steady state of Gray-Scott for every F and k: the Laplacian of a
    // constant is 0, the reaction u v^2 is 0 and the feed F (1 - u) is 0.
    CpuGrayScott sim(32, 24, 0);
    const std::vector<float> ones(32 * 24, 1.0f), zeros(32 * 24, 0.0f);
    sim.setField(ones, zeros);
    sim.step(kCoral, 100);
    EXPECT_EQ(sim.u(), ones);
    EXPECT_EQ(sim.v(), zeros);
}

TEST(SimCpuStep, OneStepMatchesHandComputedStencilAcrossTheCorner) {
    // A single v = 0.5 impulse at (0, 0) on u = 1: after one step its 8 neighbours, wrapped across
    // the corner, hold dt Dv w v0 with w = 0.2 (edges) or 0.05 (diagonals).
    const int w = 11, h = 9;
    const GrayScottParams p = kCoral;
    std::vector<float> u(w * h, 1.0f), v(w * h, 0.0f);
    v[0] = 0.5f;
    CpuGrayScott sim(w, h, 0);
    sim.setField(u, v);
    sim.step(p, 1);
    const auto at = [&](const std::vector<float>& f, int x, int y) {
        return f[static_cast<size_t>(y) * w + x];
    };
    const double v0 = 0.5, uvv = 1.0 * v0 * v0;
    EXPECT_NEAR(at(sim.u(), 0, 0), 1.0 - uvv, 1e-6);
    EXPECT_NEAR(at(sim.v(), 0, 0), v0 + p.Dv * -v0 + uvv - (p.F + p.k) * v0, 1e-6);
    const double edge = p.Dv * 0.2 * v0, diagonal = p.Dv * 0.05 * v0;
    EXPECT_NEAR(at(sim.v(), 1, 0), edge, 1e-7);
    EXPECT_NEAR(at(sim.v(), w - 1, 0), edge, 1e-7);
    EXPECT_NEAR(at(sim.v(), 0, 1), edge, 1e-7);
    EXPECT_NEAR(at(sim.v(), 0, h - 1), edge, 1e-7);
    EXPECT_NEAR(at(sim.v(), 1, 1), diagonal, 1e-7);
    EXPECT_NEAR(at(sim.v(), w - 1, h - 1), diagonal, 1e-7);
    EXPECT_NEAR(at(sim.v(), 1, h - 1), diagonal, 1e-7);
    EXPECT_NEAR(at(sim.v(), w - 1, 1), diagonal, 1e-7);
    EXPECT_EQ(at(sim.u(), 1, 0), 1.0f); // u v^2 = 0 there and u's Laplacian is 0
    EXPECT_EQ(countNonzero(sim.v()), 9u);
}

TEST(SimCpuStep, ZeroStepsChangeNothingAndEveryStepChangesTheField) {
    CpuGrayScott sim(64, 48, 11);
    sim.step(kCoral, 20);
    const std::vector<float> u = sim.u(), v = sim.v();
    sim.step(kCoral, 0);
    EXPECT_EQ(sim.u(), u);
    EXPECT_EQ(sim.v(), v);
    sim.step(kCoral, 1);
    EXPECT_NE(sim.v(), v) << "a step left a growing pattern unchanged";
}

TEST(SimCpuStep, CoralPatternsSpreadMassOfV) {
    CpuGrayScott sim(128, 128, 21);
    const double before = sum(sim.v());
    const size_t coveredBefore = countNonzero(sim.v());
    sim.step(kCoral, 1000);
    EXPECT_GT(sum(sim.v()), 2.0 * before);
    EXPECT_GT(countNonzero(sim.v()), 4 * coveredBefore);
}

TEST(SimCpuPresets, EveryPresetGrowsAPatternThatNeitherDiesNorFloods) {
    // A preset outside the pattern-forming region either decays to the rest state (v = 0
    // everywhere, as F = 0.014, k = 0.045 does) or floods the grid uniformly.
    const SimDefinition def = grayScottSimulation();
    ASSERT_FALSE(def.presets.empty());
    for (const Preset& preset : def.presets) {
        CpuGrayScott sim(80, 80, 13);
        ParamValues values = initialParams(def);
        ASSERT_EQ(applyPreset(def, preset, values), "");
        sim.step(grayScottParams(values), 1500);
        const double meanV = sum(sim.v()) / static_cast<double>(sim.v().size());
        EXPECT_GT(meanV, 0.02) << preset.name << " died out";
        EXPECT_LT(meanV, 0.4) << preset.name << " flooded the grid";
        const auto [lo, hi] = std::minmax_element(sim.v().begin(), sim.v().end());
        EXPECT_GT(*hi - *lo, 0.2f) << preset.name << " has no pattern";
    }
}

TEST(SimCpuBrush, PaintSetsCellsInsideRadiusOnly) {
    const int w = 40, h = 30;
    CpuGrayScott sim(w, h, 0);
    sim.setField(std::vector<float>(w * h, 1.0f), std::vector<float>(w * h, 0.0f));
    sim.paint(Brush{12.0f, 9.0f, 4.0f, false});
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            const bool inside = (x - 12) * (x - 12) + (y - 9) * (y - 9) <= 16;
            const size_t i = static_cast<size_t>(y) * w + x;
            ASSERT_EQ(sim.v()[i], inside ? 0.5f : 0.0f) << x << "," << y;
            ASSERT_EQ(sim.u()[i], inside ? 0.25f : 1.0f) << x << "," << y;
        }
    }
}

TEST(SimCpuBrush, PaintWrapsAroundEdges) {
    const int w = 40, h = 30;
    CpuGrayScott sim(w, h, 0);
    sim.setField(std::vector<float>(w * h, 1.0f), std::vector<float>(w * h, 0.0f));
    sim.paint(Brush{-1.0f, 0.5f, 1.5f, false}); // same as x = 39
    const auto v = [&](int x, int y) { return sim.v()[static_cast<size_t>(y) * w + x]; };
    EXPECT_EQ(v(39, 0), 0.5f);
    EXPECT_EQ(v(0, 0), 0.5f);
    EXPECT_EQ(v(38, 29), 0.0f); // distance sqrt(1 + 2.25) > 1.5
    EXPECT_EQ(v(39, 29), 0.5f); // across the top edge: distance 1.5
    EXPECT_EQ(v(1, 0), 0.0f);   // distance 2.06
    EXPECT_EQ(countNonzero(sim.v()), 8u);
}

TEST(SimCpuBrush, EraseRestoresRestStateInsideRadius) {
    CpuGrayScott sim(64, 64, 4);
    sim.step(kCoral, 200);
    const std::vector<float> vBefore = sim.v();
    sim.paint(Brush{32.0f, 32.0f, 10.0f, true});
    for (int y = 0; y < 64; ++y) {
        for (int x = 0; x < 64; ++x) {
            const size_t i = static_cast<size_t>(y) * 64 + x;
            if ((x - 32) * (x - 32) + (y - 32) * (y - 32) <= 100) {
                ASSERT_EQ(sim.u()[i], 1.0f);
                ASSERT_EQ(sim.v()[i], 0.0f);
            } else {
                ASSERT_EQ(sim.v()[i], vBefore[i]);
            }
        }
    }
}

TEST(SimMip, LevelSizesRoundDownToOne) {
    EXPECT_EQ(fullMipChainLength(300, 200), 9);
    EXPECT_EQ(fullMipChainLength(256, 256), 9);
    EXPECT_EQ(fullMipChainLength(5, 3), 3);
    EXPECT_EQ(fullMipChainLength(1, 1), 1);
    const int widths[] = {300, 150, 75, 37, 18, 9, 4, 2, 1};
    const int heights[] = {200, 100, 50, 25, 12, 6, 3, 1, 1};
    for (int level = 0; level < 9; ++level) {
        EXPECT_EQ(mipLevelSize(300, level), widths[level]) << "level " << level;
        EXPECT_EQ(mipLevelSize(200, level), heights[level]) << "level " << level;
    }
}

// Runs writeMipChain over `levels` (level 0 filled by the caller).
void mipChain(uint32_t w, uint32_t h, TexelFormat format, std::vector<std::vector<float>*> levels) {
    std::vector<void*> pointers;
    for (auto* level : levels)
        pointers.push_back(level->data());
    writeMipChain(ImageOutput{"test", w, h, 1, format, 0}, HostImageTarget{pointers});
}

TEST(SimMip, FourByFourAveragesTwoByTwoBlocks) {
    std::vector<float> level0(16), level1(4, -1.0f), level2(1, -1.0f);
    std::iota(level0.begin(), level0.end(), 0.0f); // row-major 0..15
    mipChain(4, 4, TexelFormat::R32Float, {&level0, &level1, &level2});
    EXPECT_EQ(level1, (std::vector<float>{2.5f, 4.5f, 10.5f, 12.5f}));
    EXPECT_EQ(level2[0], 7.5f);
}

TEST(SimMip, OddSizeDropsLastRowAndColumn) {
    // 5 x 3 -> 2 x 1 -> 1 x 1: level 1 averages columns 0-1 and 2-3 of rows 0-1 (column 4 and
    // row 2 are dropped); level 2 clamps its missing row 1 to row 0.
    std::vector<float> level0(15), level1(2, -1.0f), level2(1, -1.0f);
    std::iota(level0.begin(), level0.end(), 0.0f);
    mipChain(5, 3, TexelFormat::R32Float, {&level0, &level1, &level2});
    EXPECT_EQ(level1, (std::vector<float>{3.0f, 5.0f})); // (0+1+5+6)/4, (2+3+7+8)/4
    EXPECT_EQ(level2[0], 4.0f);
}

TEST(SimMip, ChannelsOfTwoAndFourChannelFormatsAverageSeparately) {
    // 2 x 2 texels of (i, 10 i) and (i, -i, 100 + i, 1): each channel is its own mean.
    std::vector<float> rg0 = {0, 0, 1, 10, 2, 20, 3, 30}, rg1(2, -1.0f);
    mipChain(2, 2, TexelFormat::RG32Float, {&rg0, &rg1});
    EXPECT_EQ(rg1, (std::vector<float>{1.5f, 15.0f}));
    std::vector<float> rgba0, rgba1(4, -1.0f);
    for (float i = 0; i < 4; ++i)
        rgba0.insert(rgba0.end(), {i, -i, 100 + i, 1});
    mipChain(2, 2, TexelFormat::RGBA32Float, {&rgba0, &rgba1});
    EXPECT_EQ(rgba1, (std::vector<float>{1.5f, -1.5f, 101.5f, 1.0f}));
}

TEST(SimMip, PartialChainLeavesLaterLevelsUntouched) {
    std::vector<float> level0(16, 2.0f), level1(4, -1.0f), level2(1, -1.0f);
    mipChain(4, 4, TexelFormat::R32Float, {&level0, &level1});
    EXPECT_EQ(level1, std::vector<float>(4, 2.0f));
    EXPECT_EQ(level2[0], -1.0f);
}

TEST(SimMip, RejectsLevelCountOutsideChain) {
    std::vector<float> out(16);
    EXPECT_THROW(mipChain(4, 4, TexelFormat::R32Float, {&out, &out, &out, &out}),
                 std::invalid_argument); // 4 x 4 has 3 levels
    EXPECT_THROW(mipChain(4, 4, TexelFormat::R32Float, {}), std::invalid_argument);
}

TEST(SimCpuConstruct, RejectsZeroWidthNamingTheValue) {
    try {
        CpuGrayScott sim(0, 16, 1);
        FAIL() << "constructed a 0-wide grid";
    } catch (const std::invalid_argument& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("width"), std::string::npos) << message;
        EXPECT_NE(message.find("got 0"), std::string::npos) << message;
    }
}

TEST(SimCpuConstruct, RejectsNegativeHeightNamingTheValue) {
    try {
        CpuGrayScott sim(16, -3, 1);
        FAIL() << "constructed a grid of height -3";
    } catch (const std::invalid_argument& error) {
        EXPECT_NE(std::string(error.what()).find("-3"), std::string::npos) << error.what();
    }
}

TEST(SimCpuConstruct, SetFieldRejectsWrongSize) {
    CpuGrayScott sim(8, 8, 1);
    EXPECT_THROW(sim.setField(std::vector<float>(63), std::vector<float>(64)),
                 std::invalid_argument);
}

} // namespace
} // namespace estuary::sim
