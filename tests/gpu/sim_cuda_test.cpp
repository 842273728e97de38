// Every simulation's CUDA implementation against its CPU reference, through the generic interface
// (what any new simulation gets for free) and Gray-Scott's own kernels in detail (stepping in every
// tiling and the tiling chooser, the output write and the 2D mip chain on odd sizes in every
// format, the brush); sim_cuda_3d_test.cpp has the 3D ones. Skips, saying why, where no CUDA
// device exists (the chooser's test needs none).
#include "cpu_gray_scott.h"
#include "cuda_check.h"
#include "cuda_gray_scott.h"
#include "fluid_multigrid.h"
#include "gray_scott_tiling.h"
#include "half_float.h"
#include "sim_cuda_fixture.h"
#include "simulations.h"
#include "slabs_cuda.h"
#include "test_support.h"

#include <cuda_runtime.h> // the typed cudaMalloc overloads and make_cudaExtent
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace estuary::sim {
namespace {

// The promise every SimDefinition makes (cudaTolerance): after many steps, brush strokes and a
// preset, the CUDA outputs equal the CPU reference's to the stated tolerance, 0 meaning bit for
// bit.
TEST_F(SimCudaTest, EverySimulationMatchesItsCpuReferenceInEveryOutputAfterManySteps) {
    for (const SimDefinition& def : estuary::simulations()) {
        SCOPED_TRACE(def.name);
        ASSERT_NE(def.createCuda, nullptr) << "a CUDA build has every simulation's CUDA half";
        // Odd: partial blocks, odd mip halvings, wrapping; particles for simulations with them
        // (an odd count too); a volume for 3D simulations.
        const GridSize grid = def.dimensions == 3
                                  ? GridSize{45, 37, 29}
                                  : GridSize{131, 77, 1, def.particles.max > 0 ? 5001u : 0u};
        const auto cpu = def.createCpu(grid);
        const auto gpu = def.createCuda(grid);
        OutputPair outputs(def.outputs(grid));
        cpu->reset(42);
        gpu->reset(42, stream);
        ParamValues params = initialParams(def);
        auto run = [&](int steps) {
            cpu->step(params, steps);
            gpu->step(params, steps, stream);
        };
        run(test::sanitizerSteps(300));
        const Brush strokes[] = {{20.5f, 70.25f, 6.0f, false, 1.5f, -0.75f},
                                 {-3.0f, 2.0f, 9.0f, false, 0.0f, 2.0f},
                                 {22.0f, 68.0f, 4.0f, true, -1.0f, 0.0f}};
        for (const Brush& brush : strokes) {
            cpu->brush(brush, params);
            gpu->brush(brush, params, stream);
        }
        run(test::sanitizerSteps(200));
        cpu->writeOutputs(outputs.hostTargets());
        gpu->writeOutputs(outputs.deviceTargets(), stream);
        const std::vector<float> before = outputs.hostLevel0();
        if (!def.presets.empty()) {
            ASSERT_EQ(applyPreset(def, def.presets.back(), params), "");
        }
        run(test::sanitizerSteps(500));
        cpu->writeOutputs(outputs.hostTargets());
        gpu->writeOutputs(outputs.deviceTargets(), stream);

        size_t compared = 0;
        std::string where;
        bool bitIdentical = false;
        const float worst = outputs.compare(stream, compared, where, bitIdentical);
        std::printf("%s: max |CUDA - CPU| = %g over %zu floats after %d steps (tolerance %g)\n",
                    def.name.c_str(), double(worst), compared,
                    test::sanitizerSteps(300) + test::sanitizerSteps(200) +
                        test::sanitizerSteps(500),
                    double(def.cudaTolerance));
        if (def.cudaTolerance == 0.0f)
            EXPECT_TRUE(bitIdentical) << "largest difference " << worst << " at " << where;
        else
            EXPECT_LE(worst, def.cudaTolerance) << "largest difference at " << where;
        // The comparison proves something only if the outputs are alive: not constant, and
        // changed by the last 500 steps.
        const auto [lo, hi] = std::minmax_element(before.begin(), before.end());
        EXPECT_GT(*hi - *lo, 1e-3f) << "output is (nearly) constant";
        EXPECT_NE(before, outputs.hostLevel0()) << "500 steps changed nothing";
    }
}

// The fluid's particles advected straight into the caller's buffers (DeviceTargets::buffersKept,
// as the app's ring promises): over a ring of three output sets and of one (advected in place),
// with 0-3 steps a frame, brush strokes between frames, half the particles moving for a while (the
// rest carried over), and one frame whose buffers are not kept, every frame's outputs equal the CPU
// reference's bit for bit.
TEST_F(SimCudaTest, FluidParticlesWrittenInPlaceIntoARingMatchTheCpuEveryFrame) {
    const SimDefinition* def = nullptr;
    for (const SimDefinition& d : estuary::simulations())
        if (d.name == "fluid") def = &d;
    ASSERT_NE(def, nullptr);
    // Under the sanitizer (racecheck took minutes over the full run) a smaller grid, 27 frames and
    // fewer pressure sweeps: still the half-share frames, the strokes and the frame whose buffers
    // are not kept, and every kernel of the step.
    const bool cut = test::underSanitizer();
    const GridSize grid = cut ? GridSize{67, 41, 1, 1001} : GridSize{131, 77, 1, 5001};
    const int frames = cut ? 27 : 40;
    for (const size_t ringSize : {size_t(3), size_t(1)}) { // one: the same buffer every frame
        SCOPED_TRACE("ring of " + std::to_string(ringSize));
        const auto cpu = def->createCpu(grid);
        const auto gpu = def->createCuda(grid);
        std::vector<std::unique_ptr<OutputPair>> ring;
        for (size_t i = 0; i < ringSize; ++i)
            ring.push_back(std::make_unique<OutputPair>(def->outputs(grid)));
        cpu->reset(7);
        gpu->reset(7, stream);
        ParamValues params = initialParams(*def);
        const int share = findParam(*def, "particle_share");
        ASSERT_GE(share, 0);
        if (cut) { // 7 sweeps: the first, then a full four-sweep launch and a partial one
            const int iterations = findParam(*def, "iterations");
            ASSERT_GE(iterations, 0);
            params[size_t(iterations)] = 7.0f;
        }
        for (int frame = 0; frame < frames; ++frame) {
            SCOPED_TRACE("frame " + std::to_string(frame));
            params[size_t(share)] = frame >= 10 && frame < 20 ? 0.5f : 1.0f;
            if (frame % 7 == 3) {
                const Brush stroke{30.0f + float(frame), 40.0f, 5.0f, false, 1.0f, -0.5f};
                cpu->brush(stroke, params);
                gpu->brush(stroke, params, stream);
            }
            const int steps = frame % 4;
            cpu->step(params, steps);
            gpu->step(params, steps, stream);
            OutputPair& outputs = *ring[size_t(frame) % ring.size()];
            DeviceTargets targets = outputs.deviceTargets();
            targets.buffersKept = frame != 25;
            cpu->writeOutputs(outputs.hostTargets());
            gpu->writeOutputs(targets, stream);
            outputs.expectBitIdentical(stream);
        }
    }
}

// The multigrid pressure solve (fluid_multigrid.h) on grids that have a hierarchy, which the test
// above (131 x 77) does not: one level launched per pass and the rest in the one-block kernel
// (96 x 64), two launched levels (256 x 192), level 0 and a 4 x 4 coarsest one (8 x 8); one and
// two V-cycles a step (the second starts with its own red half-sweep), brush strokes, and the
// switch to the Jacobi sweeps and back, which share the warm-started pressure.
TEST_F(SimCudaTest, FluidMultigridMatchesTheCpuBitForBitOnEveryHierarchyShape) {
    const SimDefinition* def = nullptr;
    for (const SimDefinition& d : estuary::simulations())
        if (d.name == "fluid") def = &d;
    ASSERT_NE(def, nullptr);
    const int cycles = findParam(*def, "v_cycles");
    ASSERT_GE(cycles, 0);
    for (const auto& [w, h, count] :
         {std::tuple{96u, 64u, 2}, std::tuple{256u, 192u, 1}, std::tuple{8u, 8u, 1}}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
        ASSERT_GT(fluidHierarchy(int(w), int(h)).levels, 0);
        const GridSize grid{w, h, 1, 501};
        const auto cpu = def->createCpu(grid);
        const auto gpu = def->createCuda(grid);
        OutputPair outputs(def->outputs(grid));
        cpu->reset(9);
        gpu->reset(9, stream);
        ParamValues params = initialParams(*def);
        params[size_t(cycles)] = float(count);
        auto run = [&](int steps) {
            cpu->step(params, steps);
            gpu->step(params, steps, stream);
        };
        run(test::sanitizerSteps(150));
        const Brush stroke{float(w) - 3.0f, 2.5f, 4.0f, false, 1.0f, 1.5f};
        cpu->brush(stroke, params);
        gpu->brush(stroke, params, stream);
        params[size_t(cycles)] = 0.0f;
        run(test::sanitizerSteps(20));
        params[size_t(cycles)] = float(count);
        run(test::sanitizerSteps(150));
        cpu->writeOutputs(outputs.hostTargets());
        gpu->writeOutputs(outputs.deviceTargets(), stream);
        outputs.expectBitIdentical(stream);
    }
}

// Every splittable simulation split into 2, 3 and 5 slabs over `devices` against the unsplit CPU
// reference: every output level bit for bit after passes of every length, brush strokes across
// slab boundaries and the wrap (each followed by steps), on odd grids.
void expectSplitRunsEqualTheReference(const std::vector<int>& devices, cudaStream_t stream,
                                      HaloTransport halos = HaloTransport::Auto) {
    for (const SimDefinition& def : estuary::simulations()) {
        if (!def.splittable) continue;
        for (uint32_t slabs : {2u, 3u, 5u}) {
            const GridSize grid = def.dimensions == 3 ? GridSize{45, 37, 29} : GridSize{131, 77};
            SCOPED_TRACE(def.name + ", " + std::to_string(slabs) + " slabs");
            const auto cpu = def.createCpu(grid);
            const auto gpu = createSlabbedCuda(def, grid, slabs, devices, 0, 0, halos);
            OutputPair outputs(def.outputs(grid));
            cpu->reset(9);
            gpu->reset(9, stream);
            const ParamValues params = initialParams(def);
            for (int steps : {1, 3, 4, 9, test::sanitizerSteps(200)}) {
                cpu->step(params, steps);
                gpu->step(params, steps, stream);
            }
            if (!def.brush.primary.empty()) {
                const Brush strokes[] = {{60.0f, 25.5f, 7.0f, false},
                                         {5.0f, 76.0f, 5.0f, false},
                                         {70.0f, 40.0f, 3.0f, true}};
                for (const Brush& brush : strokes) {
                    cpu->brush(brush, params);
                    gpu->brush(brush, params, stream);
                    cpu->step(params, 6);
                    gpu->step(params, 6, stream);
                }
            }
            cpu->writeOutputs(outputs.hostTargets());
            gpu->writeOutputs(outputs.deviceTargets(), stream);
            outputs.expectBitIdentical(stream);
            const std::vector<float> level0 = outputs.hostLevel0();
            const auto [lo, hi] = std::minmax_element(level0.begin(), level0.end());
            EXPECT_GT(*hi - *lo, 1e-3f) << "output is (nearly) constant";
        }
    }
}

// The grid split into slabs on this GPU (--slabs; device copies between slabs): every output
// level equals the unsplit CPU reference's bit for bit (and so the unsplit CUDA run's, which the
// test above holds to it), for counts that do and do not divide the grid.
TEST_F(SimCudaTest, ASplitRunOnOneGpuEqualsTheUnsplitReferenceBitForBit) {
    int device = 0;
    ASSERT_CUDA_OK(cudaGetDevice(&device));
    expectSplitRunsEqualTheReference({device}, stream);
}

// The same across two GPUs (--gpus 2: each pass's halos sent eagerly after it, the display GPU's
// share), with halos by peer copies and by NCCL: a brush stroke or reset after an eager exchange
// must make the next pass exchange again, or the halos hold the planes from before the stroke.
TEST_F(SimCudaTest, ASplitRunOnTwoGpusEqualsTheUnsplitReferenceBitForBit) {
    int count = 0, device = 0;
    ASSERT_CUDA_OK(cudaGetDeviceCount(&count));
    if (count < 2) GTEST_SKIP() << "needs 2 CUDA devices, this machine has " << count;
    ASSERT_CUDA_OK(cudaGetDevice(&device));
    const std::vector<int> devices = slabDevices(device, 2);
    {
        SCOPED_TRACE("halos by peer copies");
        const auto probe = createSlabbedCuda(*estuary::findSimulation("gray-scott"), {64, 64}, 2,
                                             devices, 0, 0, HaloTransport::Peer);
        EXPECT_EQ(slabHaloTransport(*probe), "peer copies");
        expectSplitRunsEqualTheReference(devices, stream, HaloTransport::Peer);
    }
    try {
        (void)loadNccl();
    } catch (const Error& e) {
        GTEST_SKIP() << "halos through NCCL not run: " << e.what();
    }
    SCOPED_TRACE("halos through NCCL");
    expectSplitRunsEqualTheReference(devices, stream, HaloTransport::Nccl);
}

// What a split run cannot have here is refused up front, naming it: more GPUs than present, a
// GPU listed twice.
TEST_F(SimCudaTest, SplitRunsRefuseMissingGpusAndAGpuListedTwice) {
    int count = 0;
    ASSERT_CUDA_OK(cudaGetDeviceCount(&count));
    try {
        (void)slabDevices(0, uint32_t(count) + 1);
        ADD_FAILURE() << "more GPUs than present accepted";
    } catch (const Error& e) {
        EXPECT_EQ(exitCode(e), ExitCode::Unsupported);
        EXPECT_NE(std::string(e.what()).find("this machine has " + std::to_string(count)),
                  std::string::npos)
            << e.what();
    }
    const SimDefinition& def = *estuary::findSimulation("gray-scott");
    EXPECT_THROW((void)createSlabbedCuda(def, {64, 64}, 2, {0, 0}), Error);
}

// NCCL is loaded at run time: where it can be, its version is named; where not (CI, where the
// toolkit's copy is off the loader's path), the error is exit 3 naming the library and why. Needs
// no GPU.
TEST(SlabsNccl, LoadsOrNamesTheLibraryAndWhy) {
    try {
        const std::string nccl = loadNccl();
        std::printf("loaded %s\n", nccl.c_str());
        EXPECT_EQ(nccl.rfind("NCCL 2.", 0), 0u) << nccl;
    } catch (const Error& e) {
        std::printf("NCCL not loadable here: %s\n", e.what());
        EXPECT_EQ(exitCode(e), ExitCode::Unsupported);
        EXPECT_NE(std::string(e.what()).find("libnccl.so.2"), std::string::npos) << e.what();
    }
}

TEST_F(SimCudaTest, GrayScottMatchesCpuReferenceBitForBitAfter1000Steps) {
    const int size = 256;
    const GrayScottParams params;
    CpuGrayScott cpu(size, size, 1234);
    CudaGrayScott gpu(size, size, 1234, stream);
    std::vector<float> u, v;
    gpu.download(u, v, stream);
    ASSERT_EQ(u, cpu.u()) << "seeding differs";
    ASSERT_EQ(v, cpu.v()) << "seeding differs";

    const int steps = test::sanitizerSteps(1000);
    cpu.step(params, steps);
    gpu.step(params, steps - 3, stream); // an odd count, then more: the ping-pong across calls
    gpu.step(params, 3, stream);
    gpu.download(u, v, stream);
    // Both sides evaluate stencil.h with only correctly rounded IEEE adds and multiplies (no FMA
    // contraction: -ffp-contract=off / -fmad=false), so they must agree exactly, as the README
    // says; a kernel bug (wrong neighbour, race, stale buffer) is amplified by the reaction.
    EXPECT_EQ(u, cpu.u());
    EXPECT_EQ(v, cpu.v());
    EXPECT_GT(std::count_if(v.begin(), v.end(), [](float x) { return x > 0.1f; }), 0)
        << "no pattern left: the comparison would prove nothing";
}

TEST_F(SimCudaTest, GrayScottMatchesCpuOnOddSizedGridWithPartialBlocks) {
    // 37 x 19 leaves partial 32 x 8 blocks in x and y and wraps inside them.
    const int w = 37, h = 19;
    const GrayScottParams coral{0.0545f, 0.062f, 1.0f, 0.5f, 1.0f};
    CpuGrayScott cpu(w, h, 8);
    CudaGrayScott gpu(w, h, 8, stream);
    cpu.paint(Brush{36.0f, 0.0f, 4.0f, false});
    gpu.paint(Brush{36.0f, 0.0f, 4.0f, false}, stream);
    cpu.step(coral, 200);
    gpu.step(coral, 200, stream);
    std::vector<float> u, v;
    gpu.download(u, v, stream);
    EXPECT_EQ(u, cpu.u());
    EXPECT_EQ(v, cpu.v());
}

// The tilings chooseStepTiling picks on a 132-SM H100, and odd ones (blocks of 32 and 256 threads,
// 1- and 5-row chunks, 1 to 3 steps per pass) that only setTiling reaches.
constexpr StepTiling kTilings[] = {{4, 128, 64}, {4, 128, 32}, {4, 64, 32}, {4, 64, 16},
                                   {1, 128, 16}, {2, 256, 8},  {3, 64, 5},  {4, 32, 1}};

TEST(GrayScottStepTiling, ChooserTakesFourStepsAndCutsSmallerGridsIntoMoreBlocks) {
    // One of each choice on an H100's 132 SMs: long chunks only where there are blocks enough.
    EXPECT_EQ(chooseStepTiling(4096, 4096, 132), (StepTiling{4, 128, 64}));
    EXPECT_EQ(chooseStepTiling(2048, 2048, 132), (StepTiling{4, 128, 32}));
    EXPECT_EQ(chooseStepTiling(1024, 1024, 132), (StepTiling{4, 64, 32}));
    EXPECT_EQ(chooseStepTiling(512, 512, 132), (StepTiling{4, 64, 16}));
    EXPECT_EQ(chooseStepTiling(1, 1, 132), (StepTiling{4, 64, 16}));
    EXPECT_EQ(chooseStepTiling(4096, 4096, 0), chooseStepTiling(4096, 4096, 132)) << "unknown SMs";
    EXPECT_EQ(chooseStepTiling(4096, 4096, 1000), (StepTiling{4, 128, 32})) << "more SMs";
    for (int w : {1, 2, 3, 37, 130, 1000, 4096, 16384})
        for (int h : {1, 5, 29, 600, 4096}) {
            const StepTiling t = chooseStepTiling(w, h, 132);
            EXPECT_GE(t.stepsPerPass, 1);
            EXPECT_LE(t.stepsPerPass, kMaxStepsPerPass);
            EXPECT_GE(tilingColumns(t), 1);
            EXPECT_LE(t.threads, kMaxPassThreads);
            EXPECT_GE(t.rowsPerChunk, 1);
        }
    // A frame's 8 steps in two passes of 4; 5 steps as 4 + 1.
    EXPECT_EQ(passSteps({4, 128, 64}, 8), 4);
    EXPECT_EQ(passSteps({4, 128, 64}, 1), 1);
    EXPECT_EQ(passSteps({3, 128, 64}, 2), 2);
    EXPECT_EQ(tilingBlocks({4, 128, 64}, 4096, 4096), 35 * 64);
}

TEST_F(SimCudaTest, GrayScottEveryTilingMatchesCpuBitForBitAfter1To8StepsOnOddGrids) {
    // Grids from one cell (every neighbour is the cell itself) to several blocks of columns and
    // chunks of rows; step counts that run every pass length (1, 2, 3, 4 + 1, 4 + 4), one after
    // another so the ping-pong carries across calls.
    const struct { int w, h; } grids[] = {{1, 1}, {3, 5}, {37, 29}, {130, 7}, {7, 130}, {200, 150}};
    const GrayScottParams params;
    for (const StepTiling& tiling : kTilings)
        for (const auto& grid : grids) {
            SCOPED_TRACE(std::to_string(grid.w) + "x" + std::to_string(grid.h) + ", tiling " +
                         std::to_string(tiling.stepsPerPass) + "/" +
                         std::to_string(tiling.threads) + "/" +
                         std::to_string(tiling.rowsPerChunk));
            CpuGrayScott cpu(grid.w, grid.h, 99);
            CudaGrayScott gpu(grid.w, grid.h, 99, stream);
            gpu.setTiling(tiling);
            int done = 0;
            for (int steps : {1, 2, 3, 5, 8}) {
                cpu.step(params, steps);
                gpu.step(params, steps, stream);
                done += steps;
                std::vector<float> u, v;
                gpu.download(u, v, stream);
                ASSERT_EQ(u, cpu.u()) << "after " << done << " steps";
                ASSERT_EQ(v, cpu.v()) << "after " << done << " steps";
            }
        }
}

TEST_F(SimCudaTest, GrayScottRejectsTilingsItCannotRun) {
    CudaGrayScott gpu(8, 8, 1, stream);
    EXPECT_THROW(gpu.setTiling({0, 128, 64}), std::invalid_argument);
    EXPECT_THROW(gpu.setTiling({kMaxStepsPerPass + 1, 128, 64}), std::invalid_argument);
    EXPECT_THROW(gpu.setTiling({4, 8, 64}), std::invalid_argument) << "no output columns";
    EXPECT_THROW(gpu.setTiling({4, kMaxPassThreads + 1, 64}), std::invalid_argument);
    EXPECT_THROW(gpu.setTiling({4, 128, 0}), std::invalid_argument);
}

// Odd, 1-wide, non-square and 1 x 1 images: every clamp and every dropped last row/column of
// mip_chain.h, chains of 1 to 13 levels (several five-level launches).
constexpr uint32_t kOddImages[][2] = {{1, 1},     {37, 1},    {1, 37},     {3, 5},    {130, 7},
                                      {4096, 16}, {16, 4096}, {1000, 600}, {67, 1025}};

TEST_F(SimCudaTest, MipChainOfOdd2dImagesMatchesCpuBitForBitInEveryFormatFromAnyFirstLevel) {
    for (TexelFormat format : {TexelFormat::R32Float, TexelFormat::RG32Float,
                               TexelFormat::RGBA32Float, TexelFormat::RGBA16Float})
        for (const auto& size : kOddImages) {
            const ImageOutput image{"image", size[0], size[1], 1, format, 0};
            const uint32_t levels = levelCount(image);
            // firstLevel 1: the whole chain; 2 and 6: a writer that did the first levels itself.
            for (uint32_t firstLevel : {1u, 2u, 6u}) {
                if (firstLevel > 1 && firstLevel >= levels) continue;
                SCOPED_TRACE(std::string(texelFormatName(format)) + " " + std::to_string(size[0]) +
                             "x" + std::to_string(size[1]) + " from level " +
                             std::to_string(firstLevel));
                OutputPair outputs(OutputLayout{{image}, {}});
                std::vector<float>& level0 = outputs.hostLevel(0, 0);
                const size_t values = size_t(size[0]) * size[1] * channelCount(format);
                fillRoundingValues(level0, values, format);
                writeMipChain(image, outputs.hostTargets().images[0]);
                for (uint32_t l = 0; l < firstLevel; ++l)
                    OutputPair::copyLevel(outputs.deviceImage(0).levels[l], false,
                                          mipSize(size[0], l), texelBytes(format),
                                          mipSize(size[1], l), 1, outputs.hostLevel(0, l).data(),
                                          cudaMemcpyHostToDevice);
                writeMipChain(image, outputs.deviceTargets().images[0], stream, int(firstLevel));
                outputs.expectBitIdentical(stream);
            }
        }
}

TEST_F(SimCudaTest, GrayScottOutputWriteMatchesCpuInEveryLevelOfOddAndNonSquareGrids) {
    // Level 0 and the first five levels come from one launch that reads v in linear memory, the
    // rest from writeMipChain: the seam between them moves with the chain's length.
    const GrayScottParams params;
    for (const auto& size : kOddImages) {
        const int w = int(size[0]), h = int(size[1]);
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
        CpuGrayScott cpu(w, h, 7);
        CudaGrayScott gpu(w, h, 7, stream);
        cpu.step(params, 8);
        gpu.step(params, 8, stream);
        OutputPair outputs(grayScottOutputs({uint32_t(w), uint32_t(h)}));
        cpu.writeOutputs(outputs.hostTargets());
        gpu.writeOutputs(outputs.deviceTargets(), stream);
        outputs.expectBitIdentical(stream);
        const std::vector<float>& v = outputs.hostLevel0();
        if (v.size() > 1) {
            EXPECT_NE(*std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()))
                << "v is constant: the comparison would prove little";
        }
    }
}

TEST_F(SimCudaTest, GrayScottPaintAndEraseMatchCpuExactly) {
    const int w = 200, h = 120;
    CpuGrayScott cpu(w, h, 5);
    CudaGrayScott gpu(w, h, 5, stream);
    const Brush strokes[] = {
        {50.5f, 40.25f, 12.0f, false},
        {-3.0f, 118.0f, 9.5f, false}, // wraps across both edges
        {52.0f, 44.0f, 5.0f, true},
        {412.7f, -250.3f, 7.0f, false}, // far outside: wrapped on the host by both
    };
    for (const Brush& brush : strokes) {
        cpu.paint(brush);
        gpu.paint(brush, stream);
    }
    std::vector<float> u, v;
    gpu.download(u, v, stream);
    EXPECT_EQ(u, cpu.u());
    EXPECT_EQ(v, cpu.v());
    EXPECT_GT(std::count(v.begin(), v.end(), 0.5f), 300) << "the brush painted nothing";
}

TEST_F(SimCudaTest, GrayScottRejectsBadSizesAndTargets) {
    EXPECT_THROW(CudaGrayScott(0, 8, 1, stream), std::invalid_argument);
    CudaGrayScott gpu(8, 8, 1, stream);
    const cudaSurfaceObject_t surfaces[5] = {};
    const DeviceImageTarget image{surfaces}; // 5 levels; 8 x 8 has 4
    EXPECT_THROW(gpu.writeOutputs({{&image, 1}, {}}, stream), std::invalid_argument);
    EXPECT_THROW(gpu.step(GrayScottParams{}, -1, stream), std::invalid_argument);
    const ImageOutput chain{"v", 8, 8, 1, TexelFormat::R32Float, 0};
    EXPECT_THROW(writeMipChain(chain, {{surfaces, 4}}, stream, 0), std::invalid_argument);
}

TEST_F(SimCudaTest, OutOfDeviceMemoryIsAnUnsupportedEnvironmentNamingTheCause) {
    // 1 PiB: more than any GPU has. Exit 3 with advice, not a generic runtime failure.
    void* pointer = nullptr;
    try {
        CUDA_CHECK(cudaMalloc(&pointer, size_t(1) << 50));
        FAIL() << "a 1 PiB allocation succeeded";
    } catch (const Error& e) {
        EXPECT_EQ(exitCode(e), ExitCode::Unsupported) << e.what();
        EXPECT_NE(std::string(e.what()).find("out of GPU memory"), std::string::npos) << e.what();
    }
    (void)cudaGetLastError(); // the failed allocation is not sticky; clear it for later tests
}

} // namespace
} // namespace estuary::sim
