// gray-scott-3d against hand-computed values and invariants: its 7-point stencil (a spike of v in a
// uniform field, the wrap across every face, translation invariance), the 3D mip chain on odd and
// one-wide volumes, seeding, the patterns its presets grow, and the grids it refuses. The per-cell
// functions are gray_scott_3d.h's, the ones the CUDA kernels run; the simulation itself is reached
// through the generic interface, as the backends reach it.
#include "errors.h"
#include "gray_scott_3d.h"
#include "half_float.h"
#include "mip_chain.h"
#include "simulations.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace estuary::sim {
namespace {

const SimDefinition& grayScott3d() {
    const SimDefinition* def = estuary::findSimulation("gray-scott-3d");
    if (!def) throw std::logic_error("gray-scott-3d is not registered in app/simulations.cpp");
    return *def;
}

// F = 0.04, k = 0.06, Du = 0.12, Dv = 0.06, dt = 1: round numbers for the hand computations.
constexpr GrayScottParams kHand{0.04f, 0.06f, 0.12f, 0.06f, 1.0f};

struct Field {
    int w, h, d;
    std::vector<float> u, v;
    Field(int w_, int h_, int d_)
        : w(w_), h(h_), d(d_), u(size_t(w_) * size_t(h_) * size_t(d_), 1.0f), v(u.size(), 0.0f) {}
    float& uAt(int x, int y, int z) { return u[cellIndex3d(x, y, z, w, h)]; }
    float& vAt(int x, int y, int z) { return v[cellIndex3d(x, y, z, w, h)]; }
};

// `steps` steps of the shared per-cell function over the whole periodic field.
void step(Field& f, const GrayScottParams& p, int steps) {
    std::vector<float> u(f.u.size()), v(f.v.size());
    for (int n = 0; n < steps; ++n) {
        for (int z = 0; z < f.d; ++z)
            for (int y = 0; y < f.h; ++y)
                for (int x = 0; x < f.w; ++x) {
                    const size_t i = cellIndex3d(x, y, z, f.w, f.h);
                    grayScott3dCell(f.u.data(), f.v.data(), f.w, f.h, f.d, x, y, z, p, u[i], v[i]);
                }
        f.u.swap(u);
        f.v.swap(v);
    }
}

size_t countNonzero(const std::vector<float>& values) {
    return size_t(std::count_if(values.begin(), values.end(), [](float x) { return x != 0.0f; }));
}

TEST(SimGrayScott3d, Laplacian7IsTheSixFaceNeighboursMinusSixCentres) {
    EXPECT_EQ(laplacian7(1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f), 21.0f); // 27 - 6
    EXPECT_EQ(laplacian7(0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f), 0.0f);
}

TEST(SimGrayScott3d, OneStepOfASpikeMatchesHandComputedValues) {
    // v = 0.5 at (3, 3, 3) of a u = 1, v = 0 field, one step with F 0.04, k 0.06, Du 0.12, Dv 0.06:
    //   centre: lap v = -6 * 0.5 = -3, u v^2 = 0.25, lap u = 0, F (1 - u) = 0
    //     u' = 1 - 0.25 = 0.75,  v' = 0.5 + 0.06 * -3 + 0.25 - (0.04 + 0.06) * 0.5 = 0.52
    //   each of the 6 face neighbours: lap v = 0.5, v' = 0.06 * 0.5 = 0.03, u' = 1
    //   edge and corner diagonals: lap v = 0, unchanged (u = 1, v = 0)
    Field f(8, 7, 6);
    f.vAt(3, 3, 3) = 0.5f;
    step(f, kHand, 1);
    EXPECT_EQ(f.uAt(3, 3, 3), 0.75f); // every operation on the way is exact
    EXPECT_NEAR(f.vAt(3, 3, 3), 0.52f, 1e-6f);
    const int faces[6][3] = {{2, 3, 3}, {4, 3, 3}, {3, 2, 3}, {3, 4, 3}, {3, 3, 2}, {3, 3, 4}};
    for (const auto& c : faces) {
        EXPECT_FLOAT_EQ(f.vAt(c[0], c[1], c[2]), 0.03f) << c[0] << "," << c[1] << "," << c[2];
        EXPECT_EQ(f.uAt(c[0], c[1], c[2]), 1.0f);
    }
    EXPECT_EQ(f.vAt(4, 4, 3), 0.0f); // edge diagonal
    EXPECT_EQ(f.vAt(4, 4, 4), 0.0f); // corner diagonal
    EXPECT_EQ(f.uAt(4, 4, 4), 1.0f);
    EXPECT_EQ(countNonzero(f.v), 7u);
}

TEST(SimGrayScott3d, ASpikeAtTheCornerReachesAcrossEveryFace) {
    // The same spike at (0, 0, 0) of a 7 x 6 x 5 grid: three of its face neighbours lie across the
    // faces x = 0, y = 0, z = 0, at x = 6, y = 5, z = 4.
    Field f(7, 6, 5);
    f.vAt(0, 0, 0) = 0.5f;
    step(f, kHand, 1);
    EXPECT_NEAR(f.vAt(0, 0, 0), 0.52f, 1e-6f);
    const int faces[6][3] = {{1, 0, 0}, {6, 0, 0}, {0, 1, 0}, {0, 5, 0}, {0, 0, 1}, {0, 0, 4}};
    for (const auto& c : faces)
        EXPECT_FLOAT_EQ(f.vAt(c[0], c[1], c[2]), 0.03f) << c[0] << "," << c[1] << "," << c[2];
    EXPECT_EQ(countNonzero(f.v), 7u);
    EXPECT_EQ(f.vAt(6, 5, 4), 0.0f); // the corner diagonal across all three faces
}

TEST(SimGrayScott3d, TranslatedFieldEvolvesIntoTranslatedResult) {
    // Periodic on every axis: shifting the field by (dx, dy, dz), wrapping, and stepping gives the
    // stepped field shifted, bit for bit, wherever the shift carries cells across a face.
    const int w = 20, h = 18, d = 14, dx = 13, dy = -7, dz = 9;
    Field original(w, h, d), shifted(w, h, d);
    for (int z = 0; z < d; ++z)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                seedCell3d(3, x, y, z, w, h, d, original.uAt(x, y, z), original.vAt(x, y, z));
    const auto roll = [&](Field& from, Field& to) {
        for (int z = 0; z < d; ++z)
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    const int tx = (x + dx + w) % w, ty = (y + dy + h) % h, tz = (z + dz + d) % d;
                    to.uAt(tx, ty, tz) = from.uAt(x, y, z);
                    to.vAt(tx, ty, tz) = from.vAt(x, y, z);
                }
    };
    roll(original, shifted);
    const GrayScottParams worms{0.058f, 0.065f, 0.12f, 0.06f, 1.0f};
    step(original, worms, 200);
    step(shifted, worms, 200);
    Field expected(w, h, d);
    roll(original, expected);
    EXPECT_EQ(shifted.u, expected.u);
    EXPECT_EQ(shifted.v, expected.v);
    EXPECT_GT(countNonzero(original.v), 200u) << "the field died: the comparison proves nothing";
}

// ---- the 3D mip chain ---------------------------------------------------------------------------

// writeMipChain over a w x h x d R32 float image whose level 0 holds 0, 1, 2, ... (x fastest);
// returns every level.
std::vector<std::vector<float>> chainOfRamp(uint32_t w, uint32_t h, uint32_t d) {
    const ImageOutput image{"ramp", w, h, d, TexelFormat::R32Float, 0};
    std::vector<std::vector<float>> levels;
    for (uint32_t l = 0; l < levelCount(image); ++l)
        levels.emplace_back(size_t(mipSize(w, l)) * mipSize(h, l) * mipSize(d, l), -1.0f);
    std::iota(levels[0].begin(), levels[0].end(), 0.0f);
    std::vector<void*> pointers;
    for (auto& level : levels)
        pointers.push_back(level.data());
    writeMipChain(image, HostImageTarget{pointers});
    return levels;
}

TEST(SimGrayScott3dMip, LevelCountsCountTheDeepestAxis) {
    EXPECT_EQ(fullMipLevels(5, 3, 2), 3u);
    EXPECT_EQ(fullMipLevels(2, 3, 9), 4u);
    EXPECT_EQ(fullMipLevels(4, 4, 256), 9u);
    EXPECT_EQ(fullMipLevels(300, 200), 9u); // a 2D image: depth 1
    EXPECT_EQ(levelCount(ImageOutput{"v", 4, 4, 16, TexelFormat::R32Float, 0}), 5u);
    EXPECT_EQ(levelCount(ImageOutput{"v", 4, 4, 1, TexelFormat::R32Float, 0}), 3u);
}

TEST(SimGrayScott3dMip, OddVolumeAveragesTwoByTwoByTwoBlocks) {
    // 5 x 3 x 2, texel (x, y, z) = 15 z + 5 y + x. Level 1 is 2 x 1 x 1: texel 0 averages columns
    // 0-1, rows 0-1 of both slices: slice 0 (0 + 1 + 5 + 6) / 4 = 3, slice 1 18, mean 10.5;
    // texel 1 columns 2-3: 5 and 20, 12.5 (column 4 and row 2 are dropped). Level 2 is 1 x 1 x 1:
    // columns 0-1 of level 1, its one row and slice used twice: 11.5.
    const auto levels = chainOfRamp(5, 3, 2);
    ASSERT_EQ(levels.size(), 3u);
    EXPECT_EQ(levels[1], (std::vector<float>{10.5f, 12.5f}));
    EXPECT_EQ(levels[2], (std::vector<float>{11.5f}));
}

TEST(SimGrayScott3dMip, OneWideAxesUseTheirSingleColumnTwice) {
    // 2 x 3 x 9, texel (x, y, z) = 6 z + 2 y + x. Level 1 (1 x 1 x 4): slice z of it averages
    // x 0-1, y 0-1 of slices 2z and 2z + 1: (6 (2z) + 1.5 + 6 (2z + 1) + 1.5) / 2 = 12 z + 4.5
    // (slice 8 dropped). Level 2 (1 x 1 x 2): x and y clamp to 0, pairs of slices: 10.5, 34.5.
    // Level 3: 22.5.
    const auto levels = chainOfRamp(2, 3, 9);
    ASSERT_EQ(levels.size(), 4u);
    EXPECT_EQ(levels[1], (std::vector<float>{4.5f, 16.5f, 28.5f, 40.5f}));
    EXPECT_EQ(levels[2], (std::vector<float>{10.5f, 34.5f}));
    EXPECT_EQ(levels[3], (std::vector<float>{22.5f}));
}

TEST(SimGrayScott3dMip, ChannelsOfAHalfVolumeAverageSeparately) {
    // 2 x 2 x 2 RGBA16 float texels (i, -i, 8 + i, 1): each channel is its own mean over all 8.
    std::vector<uint16_t> level0, level1(4, 0);
    for (int i = 0; i < 8; ++i)
        for (float c : {float(i), -float(i), 8.0f + float(i), 1.0f})
            level0.push_back(floatToHalf(c));
    std::vector<void*> pointers{level0.data(), level1.data()};
    writeMipChain(ImageOutput{"h", 2, 2, 2, TexelFormat::RGBA16Float, 0},
                  HostImageTarget{pointers});
    EXPECT_EQ(halfToFloat(level1[0]), 3.5f);
    EXPECT_EQ(halfToFloat(level1[1]), -3.5f);
    EXPECT_EQ(halfToFloat(level1[2]), 11.5f);
    EXPECT_EQ(halfToFloat(level1[3]), 1.0f);
}

// ---- the simulation, through the generic interface ----------------------------------------------

// Level 0 of the simulation's one output (v), after writing every level.
std::vector<float> outputV(CpuSimulation& sim, const GridSize& grid) {
    const ImageOutput image = grayScott3d().outputs(grid).images.at(0);
    std::vector<std::vector<float>> levels;
    for (uint32_t l = 0; l < levelCount(image); ++l)
        levels.emplace_back(size_t(mipSize(image.width, l)) * mipSize(image.height, l) *
                            mipSize(image.depth, l));
    std::vector<void*> pointers;
    for (auto& level : levels)
        pointers.push_back(level.data());
    const HostImageTarget target{pointers};
    sim.writeOutputs({{&target, 1}, {}});
    return levels[0];
}

double fractionAbove(const std::vector<float>& v, float threshold) {
    return double(std::count_if(v.begin(), v.end(), [&](float x) { return x > threshold; })) /
           double(v.size());
}

TEST(SimGrayScott3d, DefinitionIsCleanAndThreeDimensional) {
    const SimDefinition& def = grayScott3d();
    EXPECT_EQ(checkDefinition(def), "");
    EXPECT_EQ(def.dimensions, 3u);
    EXPECT_TRUE(def.brush.primary.empty()) << "no brush: a stroke on the screen names no depth";
    ASSERT_EQ(def.views.size(), 2u);
    EXPECT_EQ(def.views[0].name, "volume");
    EXPECT_EQ(def.views[0].fragmentShader, "volume.frag");
    EXPECT_EQ(def.views[1].name, "slice");
    EXPECT_EQ(def.views[1].fragmentShader, "volume_slice.frag");
    EXPECT_EQ(def.cudaTolerance, 0.0f);
    const OutputLayout layout = def.outputs({40, 30, 20});
    ASSERT_EQ(layout.images.size(), 1u);
    EXPECT_EQ(layout.images[0].name, "v");
    EXPECT_EQ(layout.images[0].depth, 20u);
    EXPECT_EQ(layout.images[0].format, TexelFormat::R32Float);
    EXPECT_EQ(levelCount(layout.images[0]), 6u); // 40 -> 20 -> 10 -> 5 -> 2 -> 1
    // Diffusion alone is stable below 1/6; the table must stay below it for every dt.
    for (const char* name : {"Du", "Dv"}) {
        const int index = findParam(def, name);
        ASSERT_GE(index, 0) << name;
        EXPECT_LT(def.params[size_t(index)].max * 12.0f, 2.0f) << name;
    }
}

TEST(SimGrayScott3d, RefusesGridsWithoutDepthOrThinnerThanFourCells) {
    const SimDefinition& def = grayScott3d();
    for (const GridSize& grid :
         {GridSize{64, 64, 1}, GridSize{16, 16, 3}, GridSize{3, 16, 16}, GridSize{16, 2, 16}}) {
        try {
            def.createCpu(grid);
            ADD_FAILURE() << "accepted " << grid.width << "x" << grid.height << "x" << grid.depth;
        } catch (const Error& e) {
            EXPECT_EQ(exitCode(e), ExitCode::Usage) << e.what();
            const std::string message = e.what();
            EXPECT_NE(message.find("4x4x4"), std::string::npos) << message;
            EXPECT_NE(message.find(std::to_string(grid.width) + "x" + std::to_string(grid.height) +
                                   "x" + std::to_string(grid.depth)),
                      std::string::npos)
                << message;
        }
    }
    EXPECT_NO_THROW(def.createCpu({4, 4, 4}));
}

TEST(SimGrayScott3d, ResetIsDeterministicInTheSeed) {
    const SimDefinition& def = grayScott3d();
    const GridSize grid{30, 26, 22};
    const ParamValues params = initialParams(def);
    const auto a = def.createCpu(grid), b = def.createCpu(grid);
    a->reset(7);
    b->reset(3);
    b->step(params, 5);
    b->reset(7); // a reset forgets everything before it
    EXPECT_EQ(outputV(*a, grid), outputV(*b, grid));
    a->step(params, 40);
    b->step(params, 40);
    EXPECT_EQ(outputV(*a, grid), outputV(*b, grid));
    b->reset(8);
    a->reset(7);
    EXPECT_NE(outputV(*a, grid), outputV(*b, grid));
}

TEST(SimGrayScott3d, SeedPlantsNoisyCubesOnTheRestState) {
    const int n = 48;
    size_t seeded = 0;
    std::vector<float> seededV;
    for (int z = 0; z < n; ++z)
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                float u = -1, v = -1;
                seedCell3d(9, x, y, z, n, n, n, u, v);
                if (v == 0.0f) {
                    ASSERT_EQ(u, 1.0f) << x << "," << y << "," << z;
                    continue;
                }
                ++seeded;
                ASSERT_NEAR(u, 0.5f, 0.005f);
                ASSERT_NEAR(v, 0.25f, 0.005f);
                seededV.push_back(v);
            }
    // One cube (side 5..9) per 16^3 block with probability 1/2: 27 blocks hold 1..27 of them.
    EXPECT_GE(seeded, 125u);
    EXPECT_LE(seeded, 27u * 729u);
    EXPECT_NE(*std::min_element(seededV.begin(), seededV.end()),
              *std::max_element(seededV.begin(), seededV.end()))
        << "no noise on the seeds";
}

TEST(SimGrayScott3d, EveryPresetGrowsAPatternThatNeitherDiesNorExplodesAt32Cubed) {
    // Measured at 32^3 from seed 5 after 600 steps: the fraction of cells with v > 0.1 lies
    // between 0.08 (spots) and 0.73 (waves, which swing), the largest v between 0.39 and 0.49.
    // Dying ends at v = 0 everywhere; a numerical blow-up floods v to 1 (the clamp).
    const SimDefinition& def = grayScott3d();
    const GridSize grid{32, 32, 32};
    ASSERT_FALSE(def.presets.empty());
    for (const Preset& preset : def.presets) {
        SCOPED_TRACE(preset.name);
        ParamValues values = initialParams(def);
        ASSERT_EQ(applyPreset(def, preset, values), "");
        const auto sim = def.createCpu(grid);
        sim->reset(5);
        sim->step(values, 600);
        const std::vector<float> v = outputV(*sim, grid);
        const float largest = *std::max_element(v.begin(), v.end());
        EXPECT_GT(fractionAbove(v, 0.1f), 0.04) << "died out";
        EXPECT_LT(fractionAbove(v, 0.1f), 0.85) << "flooded the volume";
        EXPECT_GT(largest, 0.3f) << "no pattern";
        EXPECT_LT(largest, 0.7f) << "blew up";
    }
}

TEST(SimGrayScott3d, TheDefaultPatternKeepsGrowing) {
    // Worms lengthen: from seed 5 at 32^3 the cells with v > 0.1 go from 10% (400 steps) to 16%
    // (800 steps), measured.
    const SimDefinition& def = grayScott3d();
    const GridSize grid{32, 32, 32};
    const auto sim = def.createCpu(grid);
    sim->reset(5);
    sim->step(initialParams(def), 400);
    const double at400 = fractionAbove(outputV(*sim, grid), 0.1f);
    sim->step(initialParams(def), 400);
    const double at800 = fractionAbove(outputV(*sim, grid), 0.1f);
    EXPECT_GT(at400, 0.05);
    EXPECT_GT(at800, 1.25 * at400);
}

} // namespace
} // namespace estuary::sim
