// gray-scott-3d's CUDA kernels against the CPU, bit for bit: the simulation on an odd volume over
// every preset, every temporal step tiling on odd volumes (the chooser's too), and the 3D mip
// chain (the tile kernel, kTileLevels3d levels a launch) of odd, flat and 1-wide volumes in every
// format from any first level. Skips, saying why, where no CUDA device exists (the chooser's test
// needs none).
#include "gray_scott_3d_cuda.h"
#include "gray_scott_tiling.h"
#include "sim_cuda_fixture.h"
#include "simulations.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace estuary::sim {
namespace {

TEST_F(SimCudaTest, GrayScott3dMatchesCpuBitForBitInEveryMipLevelOfAnOddVolume) {
    // 37 x 29 x 23: partial blocks in x and y and a partial chunk of slices in z, wrapping inside
    // them; a six-level chain of odd halvings (37 x 29 x 23 -> 18 x 14 x 11 -> 9 x 7 x 5 ->
    // 4 x 3 x 2 -> 2 x 1 x 1 -> 1 x 1 x 1).
    const SimDefinition* def = estuary::findSimulation("gray-scott-3d");
    ASSERT_NE(def, nullptr);
    const GridSize grid{37, 29, 23};
    const auto cpu = def->createCpu(grid);
    const auto gpu = def->createCuda(grid);
    OutputPair outputs(def->outputs(grid));
    const auto expectSame = [&](const std::string& when) {
        cpu->writeOutputs(outputs.hostTargets());
        gpu->writeOutputs(outputs.deviceTargets(), stream);
        const size_t compared = outputs.expectBitIdentical(stream, when);
        EXPECT_EQ(compared, 24679u + 2772u + 315u + 24u + 2u + 1u) << "not every level was read";
    };
    cpu->reset(77);
    gpu->reset(77, stream);
    expectSame("after reset");
    ParamValues params = initialParams(*def);
    // Odd: the ping-pong ends on the other buffer. Under the sanitizer a few steps a stage (a
    // hazard shows in a kernel's first launches; racecheck did not finish the full run in 70 s).
    const int first = test::sanitizerSteps(397) | 1, perPreset = test::sanitizerSteps(150);
    cpu->step(params, first);
    gpu->step(params, first, stream);
    expectSame("after " + std::to_string(first) + " steps");
    for (const Preset& preset : def->presets) {
        ASSERT_EQ(applyPreset(*def, preset, params), "");
        cpu->step(params, perPreset);
        gpu->step(params, perPreset, stream);
        expectSame("after preset " + preset.name);
    }
    // The pattern needs the full run to grow; the sanitizer's short one compares the seeds.
    if (!test::underSanitizer()) {
        const std::vector<float>& v = outputs.hostLevel0();
        EXPECT_GT(std::count_if(v.begin(), v.end(), [](float x) { return x > 0.1f; }), 500)
            << "no pattern left: the comparison would prove nothing";
    }
}

TEST(GrayScott3dStepTiling, ChooserPicksRunnableTilingsForEveryVolume) {
    // One round of one 256-slice chunk at 256³; three chunks of 171 slices at 512³ (11 rounds);
    // slabs of the split run get chunks cut to their depth, not to a power of two.
    EXPECT_EQ(chooseStepTiling3d(256, 256, 256, 132), (StepTiling3d{4, 32, 256}));
    EXPECT_EQ(chooseStepTiling3d(512, 512, 512, 132), (StepTiling3d{4, 32, 171}));
    EXPECT_EQ(chooseStepTiling3d(512, 512, 298, 132), (StepTiling3d{4, 32, 100}));
    EXPECT_EQ(chooseStepTiling3d(512, 512, 512, 0), chooseStepTiling3d(512, 512, 512, 132));
    EXPECT_EQ(chooseStepTiling3d(48, 48, 48, 132).slicesPerChunk, 16)
        << "a grid of fewer blocks than SMs is cut into more blocks";
    for (int w : {1, 4, 37, 256, 512, 1024})
        for (int h : {1, 5, 256, 512})
            for (int d : {1, 3, 256, 512})
                for (int sms : {0, 1, 132, 1000}) {
                    const StepTiling3d t = chooseStepTiling3d(w, h, d, sms);
                    EXPECT_TRUE(validTiling3d(t)) << w << "x" << h << "x" << d << ", " << sms;
                }
    EXPECT_FALSE(validTiling3d({0, 16, 32}));
    EXPECT_FALSE(validTiling3d({5, 16, 32})) << "more steps than the kernels have";
    EXPECT_FALSE(validTiling3d({4, 8, 32})) << "no rows left inside the halo";
    EXPECT_FALSE(validTiling3d({2, 64, 32})) << "2048 threads";
    EXPECT_FALSE(validTiling3d({2, 16, 0}));
    EXPECT_TRUE(validTiling3d({4, 9, 1}));
    EXPECT_EQ(tilingBlocks3d({2, 16, 32}, 256, 256, 256), 10 * 22 * 8);
}

// Tilings the chooser picks and odd ones: every pass length, blocks whose inner part is one row,
// one-slice and seven-slice chunks, the largest block.
constexpr StepTiling3d kTilings3d[] = {{1, 8, 16},  {2, 16, 32}, {3, 16, 7}, {4, 9, 1},
                                       {4, 32, 64}, {2, 8, 5},   {3, 32, 16}};

TEST_F(SimCudaTest, GrayScott3dEveryTilingMatchesCpuBitForBitAfter1To8StepsOnOddVolumes) {
    // From the smallest volume the simulation takes to ones spanning several blocks and chunks on
    // each axis, wrapping inside a block; step counts that run every pass length, one after
    // another so that the ping-pong carries across calls.
    const SimDefinition* def = estuary::findSimulation("gray-scott-3d");
    ASSERT_NE(def, nullptr);
    const ParamValues params = initialParams(*def);
    // Under the sanitizer (racecheck runs this at minutes) the widest volume is left out and the
    // steps go to 1-4, still every pass length and partial blocks and chunks on each axis.
    const bool cut = test::underSanitizer();
    std::vector<GridSize> grids = {{4, 4, 4}, {37, 29, 23}, {5, 130, 6}};
    if (!cut) grids.push_back({70, 9, 33});
    const std::vector<int> stepCounts =
        cut ? std::vector<int>{1, 2, 3, 4} : std::vector<int>{1, 2, 3, 5, 8};
    const int sizes = int(grids.size()) * (int(std::size(kTilings3d)) + 1);
    int checked = 0;
    for (size_t i = 0; i <= std::size(kTilings3d); ++i) {
        const bool chosen = i == std::size(kTilings3d);
        for (const GridSize& grid : grids) {
            const std::optional<StepTiling3d> tiling =
                chosen ? std::nullopt : std::optional(kTilings3d[i]);
            SCOPED_TRACE(std::to_string(grid.width) + "x" + std::to_string(grid.height) + "x" +
                         std::to_string(grid.depth) + ", tiling " +
                         (chosen ? std::string("chosen")
                                 : std::to_string(tiling->stepsPerPass) + "/" +
                                       std::to_string(tiling->blockY) + "/" +
                                       std::to_string(tiling->slicesPerChunk)));
            const auto cpu = def->createCpu(grid);
            const auto gpu = createCudaGrayScott3d(grid, tiling);
            cpu->reset(5);
            gpu->reset(5, stream);
            const size_t cells = size_t(grid.width) * grid.height * grid.depth;
            int done = 0;
            for (int steps : stepCounts) {
                cpu->step(params, steps);
                gpu->step(params, steps, stream);
                done += steps;
                const SlabFields want = cpu->slabFields(), got = gpu->slabFields();
                for (size_t f = 0; f < 2; ++f) {
                    std::vector<float> field(cells);
                    ASSERT_CUDA_OK(cudaMemcpyAsync(field.data(), got.fields[f],
                                                   cells * sizeof(float), cudaMemcpyDeviceToHost,
                                                   stream));
                    ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
                    ASSERT_EQ(std::memcmp(field.data(), want.fields[f], cells * sizeof(float)), 0)
                        << (f == 0 ? "u" : "v") << " after " << done << " steps";
                }
            }
            ++checked;
        }
    }
    EXPECT_EQ(checked, sizes);
}

TEST_F(SimCudaTest, GrayScott3dRejectsTilingsItCannotRun) {
    for (const StepTiling3d& bad :
         {StepTiling3d{0, 16, 32}, StepTiling3d{5, 16, 32}, StepTiling3d{4, 8, 32},
          StepTiling3d{2, 64, 32}, StepTiling3d{2, 16, 0}}) {
        try {
            (void)createCudaGrayScott3d({8, 8, 8}, bad);
            ADD_FAILURE() << "accepted " << bad.stepsPerPass << "/" << bad.blockY << "/"
                          << bad.slicesPerChunk;
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("bad 3D step tiling"), std::string::npos)
                << e.what();
        }
    }
}

TEST_F(SimCudaTest, MipChainOf3dImagesMatchesCpuBitForBitInEveryFormatFromAnyFirstLevel) {
    // 13 x 6 x 9: a depth that outlasts the height, so blocks clamp in y before z (one launch);
    // 67 x 40 x 35: seven levels, two tile launches; 130 x 9 x 18: several blocks along x, y
    // 1-wide from level 3 on; 64 x 64 x 4: z 1-wide from level 2 on. Level 0 (and, from a later
    // first level, the levels above it: a writer that did those itself) filled and uploaded.
    const struct {
        uint32_t w, h, d;
    } volumes[] = {{13, 6, 9}, {67, 40, 35}, {130, 9, 18}, {64, 64, 4}};
    for (TexelFormat format : {TexelFormat::R32Float, TexelFormat::RG32Float,
                               TexelFormat::RGBA32Float, TexelFormat::RGBA16Float})
        for (const auto& volume : volumes)
            for (int firstLevel : {1, 2, 6}) {
                const ImageOutput image{"volume", volume.w, volume.h, volume.d, format, 0};
                const uint32_t levels = levelCount(image);
                if (uint32_t(firstLevel) >= levels) continue;
                SCOPED_TRACE(std::string(texelFormatName(format)) + " " + std::to_string(volume.w) +
                             "x" + std::to_string(volume.h) + "x" + std::to_string(volume.d) +
                             " from level " + std::to_string(firstLevel));
                OutputPair outputs(OutputLayout{{image}, {}});
                fillRoundingValues(outputs.hostLevel(0, 0),
                                   size_t(volume.w) * volume.h * volume.d * channelCount(format),
                                   format);
                writeMipChain(image, outputs.hostTargets().images[0]);
                size_t expected = 0;
                for (uint32_t l = 0; l < levels; ++l) {
                    const uint32_t w = mipSize(volume.w, l), h = mipSize(volume.h, l);
                    const uint32_t d = mipSize(volume.d, l);
                    expected += size_t(w) * h * d * channelCount(format);
                    if (l < uint32_t(firstLevel))
                        OutputPair::copyLevel(
                            outputs.deviceImage(0).levels[l], true, w, texelBytes(format), h, d,
                            outputs.hostLevel(0, l).data(), cudaMemcpyHostToDevice);
                }
                writeMipChain(image, outputs.deviceTargets().images[0], stream, firstLevel);
                EXPECT_EQ(outputs.expectBitIdentical(stream), expected);
            }
}

} // namespace
} // namespace estuary::sim
