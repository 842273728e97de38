// The whole path on a real GPU: a CUDA simulation writes its field and mip chain into an image
// Vulkan exported, every draw samples its own frame, and `estuary --backend cuda` draws the same
// picture as the CPU backend, for every registered simulation.
#include "counter_simulation.h"
#include "cpu_gray_scott.h"
#include "cuda_gray_scott.h"
#include "cuda_vulkan_fixture.h"
#include "simulations.h"
#include "stamped_run.h"
#include "vk_check.h"

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <cstring>

namespace estuary::test {
namespace {

using namespace interop;

class AppGpu : public CudaVulkanTest {};

TEST_F(AppGpu, CudaSimulationWritesFieldAndMipsIntoSharedImageLikeTheCpuReference) {
    const int w = 300, h = 200, steps = 200;
    const sim::GrayScottParams params;
    sim::CudaGrayScott gpu(w, h, 7, stream);
    sim::CpuGrayScott cpu(w, h, 7);
    gpu.step(params, steps, stream);
    cpu.step(params, steps);

    ExportedImageDesc desc;
    desc.extent = {uint32_t(w), uint32_t(h)};
    ExportedImage image = createExportedImage(context, desc);
    CudaImage cuda = importImage(context, image);
    SharedTimeline written = createSharedTimeline(context, "field written");
    submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
        recordReleaseToExternal(cmd, context, image, VK_IMAGE_LAYOUT_UNDEFINED,
                                VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE);
    });
    const sim::DeviceImageTarget target{cuda.surfaces};
    gpu.writeOutputs({{&target, 1}, {}}, stream);
    cudaSignalTimeline(written, 1, stream);
    // The host waits for CUDA's signal; then Vulkan takes the image back and reads it.
    waitTimeline(device, written.semaphore, 1, "field written");
    submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
        recordAcquireFromExternal(cmd, context, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                  VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
    });
    const auto bytes =
        readImageLevels(device, pool, image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);

    std::vector<std::vector<float>> expected(image.image.mipLevels);
    std::vector<void*> pointers;
    for (uint32_t level = 0; level < image.image.mipLevels; ++level) {
        const VkExtent2D e = mipExtent(desc.extent, level);
        expected[level].resize(size_t(e.width) * e.height);
        pointers.push_back(expected[level].data());
    }
    const sim::HostImageTarget host{pointers};
    cpu.writeOutputs({{&host, 1}, {}});

    size_t offset = 0;
    size_t mismatches = 0;
    for (uint32_t level = 0; level < image.image.mipLevels; ++level) {
        std::vector<float> got(expected[level].size());
        std::memcpy(got.data(), bytes.data() + offset, got.size() * sizeof(float));
        offset += got.size() * sizeof(float);
        for (size_t i = 0; i < got.size(); ++i)
            mismatches += got[i] != expected[level][i];
    }
    std::printf("texels of the shared image (%u levels) unlike the CPU reference: %zu\n",
                image.image.mipLevels, mismatches);
    // Same stencil and mip arithmetic, no FMA contraction on either side: bit-identical.
    EXPECT_EQ(mismatches, 0u);

    CUDA_CHECK(cudaStreamSynchronize(stream));
    destroyCudaImage(cuda);
    destroySharedTimeline(context, written);
    destroyExportedImage(context, image);
}

class AppGpuRun : public ::testing::Test {
  protected:
    void SetUp() override {
        const auto cuda = listCudaDevices();
        if (cuda.devices.empty())
            GTEST_SKIP() << "no NVIDIA GPU usable by CUDA here: " << cuda.problem;
    }
};

TEST_F(AppGpuRun, HeadlessCudaRunValidatesAndMatchesTheCpuBackendScreenshotForEverySimulation) {
    for (const sim::SimDefinition& def : simulations()) {
        SCOPED_TRACE(def.name);
        const auto dir = scratchDir("app-gpu-" + def.name);
        const std::string common = "--sim " + def.name + " --headless --validate --frames 300 " +
                                   (def.dimensions == 3 ? "--size 64x64x64 " : "--size 256x256 ") +
                                   "--resolution 256x256 --seed 3 " +
                                   // The backends' default counts differ: give both the same.
                                   (def.particles.max ? "--particles 20000 " : "");
        const auto cudaRun = runEstuary(common + "--backend cuda --screenshot '" +
                                        (dir / "cuda.png").string() + "'");
        std::printf("%s\n", cudaRun.output.c_str());
        ASSERT_EQ(cudaRun.exitCode, 0) << cudaRun.output;
        EXPECT_NE(cudaRun.output.find("backend cuda"), std::string::npos);
        EXPECT_NE(cudaRun.output.find("reported 0 message"), std::string::npos);
        const auto cpuRun =
            runEstuary(common + "--backend cpu --screenshot '" + (dir / "cpu.png").string() + "'");
        ASSERT_EQ(cpuRun.exitCode, 0) << cpuRun.output;

        const Rgba8Image a = loadPng(dir / "cuda.png");
        const Rgba8Image b = loadPng(dir / "cpu.png");
        ASSERT_EQ(a.width, b.width);
        ASSERT_EQ(a.height, b.height);
        EXPECT_GT(countDistinctColors(a), 16u) << "the CUDA screenshot is (nearly) uniform";
        // Bit-identical outputs drawn by the same renderer on the same GPU: the same pixels.
        const ImageDiff diff = compareRgba8(a.pixels, b.pixels, 0);
        std::printf("%s: cuda vs cpu screenshot: max diff %d, differing fraction %g\n",
                    def.name.c_str(), diff.maxAbsDiff, diff.failingFraction);
        EXPECT_EQ(a.pixels, b.pixels);
    }
}

// A 3D simulation's volume drawn both ways on the GPU: the compute march (storage image copied into
// the target) and the fragment march draw the same picture of the same CUDA frames.
TEST_F(AppGpuRun, ComputeAndFragmentVolumeMarchesDrawTheSameCudaFrames) {
    for (const sim::SimDefinition& def : simulations()) {
        if (def.dimensions != 3) continue;
        SCOPED_TRACE(def.name);
        const auto dir = scratchDir("app-gpu-volume-draw-" + def.name);
        const std::string common = "--sim " + def.name +
                                   " --headless --backend cuda --validate --frames 200 "
                                   "--size 96x80x64 --resolution 320x240 --seed 3 --axes off ";
        const auto fragment = runEstuary(common + "--draw raster --screenshot '" +
                                         (dir / "fragment.png").string() + "'");
        ASSERT_EQ(fragment.exitCode, 0) << fragment.output;
        const auto compute = runEstuary(common + "--draw compute --screenshot '" +
                                        (dir / "compute.png").string() + "'");
        std::printf("%s\n", compute.output.c_str());
        ASSERT_EQ(compute.exitCode, 0) << compute.output;
        EXPECT_NE(compute.output.find("reported 0 message"), std::string::npos);
        const Rgba8Image a = loadPng(dir / "fragment.png"), b = loadPng(dir / "compute.png");
        ASSERT_EQ(a.pixels.size(), b.pixels.size());
        EXPECT_GT(countDistinctColors(b), 16u) << "the compute-marched volume is (nearly) flat";
        const ImageDiff diff = compareRgba8(a.pixels, b.pixels, 1);
        std::printf("%s: compute vs fragment march: max diff %d, failing fraction %g\n",
                    def.name.c_str(), diff.maxAbsDiff, diff.failingFraction);
        EXPECT_LE(diff.maxAbsDiff, 1);
        EXPECT_EQ(diff.failingFraction, 0.0);
    }
}

// The axes, grid, ticks and colorbar of a panel drawn by the annotation layer's compute path (tiles
// of quads blended in drawing order) on the GPU against its raster pass, over the same CUDA frames.
// The views underneath match within 1/255 (the test above); the layer's float blend rounds apart
// from the blend unit's by a few levels, and no pixel may be a different colour.
TEST_F(AppGpuRun, ComputeAnnotationLayerDrawsTheRasterAxes) {
    const auto dir = scratchDir("app-gpu-annotations");
    const std::string common = "--sim gray-scott --headless --backend cuda --validate --frames 60 "
                               "--size 256x256 --resolution 480x320 --seed 3 --axes on ";
    const auto raster =
        runEstuary(common + "--draw raster --screenshot '" + (dir / "raster.png").string() + "'");
    ASSERT_EQ(raster.exitCode, 0) << raster.output;
    const auto compute =
        runEstuary(common + "--draw compute --screenshot '" + (dir / "compute.png").string() + "'");
    ASSERT_EQ(compute.exitCode, 0) << compute.output;
    EXPECT_NE(compute.output.find("reported 0 message"), std::string::npos) << compute.output;
    const Rgba8Image a = loadPng(dir / "raster.png"), b = loadPng(dir / "compute.png");
    ASSERT_EQ(a.pixels.size(), b.pixels.size());
    size_t over3 = 0, over24 = 0;
    for (size_t i = 0; i < a.pixels.size(); i += 4) {
        int d = 0;
        for (size_t c = 0; c < 3; ++c)
            d = std::max(d, std::abs(int(a.pixels[i + c]) - int(b.pixels[i + c])));
        over3 += d > 3;
        over24 += d > 24;
    }
    const double pixels = double(a.pixels.size() / 4);
    std::printf("annotations compute vs raster: %zu pixels over 3 levels, %zu over 24, of %g\n",
                over3, over24, pixels);
    EXPECT_LT(double(over3), 0.002 * pixels);
    EXPECT_EQ(over24, 0u);
}

// The fluid's particles on the GPU both ways: splatted by compute (--draw compute) and rasterized,
// dense enough (300k particles on a 320x240 picture, ~4 a pixel) that the points overlap and
// saturate. Measured on the H100: 5.1% of pixels off by more than 2/255 (edge and rounding choices
// of NVIDIA's rasterizer and blender that the splat does not model; lavapipe's it does), light
// within 0.12%; bounds 8% and 0.5%.
TEST_F(AppGpuRun, SplattedParticlesDrawTheRasterPictureOfTheSameCudaFrames) {
    const auto dir = scratchDir("app-gpu-splat");
    const std::string common = "--sim fluid --headless --backend cuda --validate --frames 60 "
                               "--size 256x256 --particles 300000 --resolution 320x240 --seed 5 ";
    const auto raster =
        runEstuary(common + "--draw raster --screenshot '" + (dir / "raster.png").string() + "'");
    ASSERT_EQ(raster.exitCode, 0) << raster.output;
    const auto splat =
        runEstuary(common + "--draw compute --screenshot '" + (dir / "splat.png").string() + "'");
    ASSERT_EQ(splat.exitCode, 0) << splat.output;
    EXPECT_NE(splat.output.find("reported 0 message"), std::string::npos) << splat.output;
    const Rgba8Image a = loadPng(dir / "raster.png"), b = loadPng(dir / "splat.png");
    EXPECT_GT(countDistinctColors(b), 16u) << "the splatted picture is (nearly) flat";
    test::expectSplatDrawsTheRasterPicture(a.pixels, b.pixels, 0.08, 0.005,
                                           "fluid, 300k particles");
}

TEST_F(AppGpuRun, EveryDrawSamplesItsOwnFrameForEachFramesInFlightCuda) {
    for (const sim::SimDefinition& def : simulations())
        for (uint32_t inFlight : {1u, 2u, 3u, 4u, 8u}) {
            SCOPED_TRACE(def.name + ", frames in flight " + std::to_string(inFlight));
            Options o;
            o.simulation = def.name;
            o.backend = Backend::Cuda;
            o.grid = def.dimensions == 3 ? Extent{64, 64, 64} : Extent{256, 256};
            o.stepsPerFrame = 4;
            o.framesInFlight = inFlight;
            // The protocol is the same for any count; a moderate one keeps this fast under the
            // sanitizers, whose shadow state grows with every buffer.
            if (def.particles.max > 0) o.particles = 65536;
            const auto run = runStampedFrames(o, 300);
            if (def.particles.max > 0) {
                ASSERT_EQ(run.bufferTailBefore.size(), 300u) << "the particle buffer was not read";
            }
            EXPECT_EQ(run.validationMessages, 0u);
            ASSERT_EQ(run.seenBefore.size(), 300u);
            EXPECT_EQ(run.wrongFrames(), 0u)
                << "draws that sampled another frame's output, before or after drawing";
        }
}

TEST_F(AppGpuRun, EveryOutputImageAndBufferOfAFrameReachesItsOwnDrawCudaAndHostCopy) {
    // The counter simulation: two images (R32 full chain, RG32 two levels) and a buffer through
    // ImageRings and a BufferRing (cuda) and through private CUDA memory and the host
    // (host-copy); each draw must see its own frame's outputs, in every level.
    const sim::SimDefinition counter = counterSimulationWithCuda();
    for (bool hostCopy : {false, true})
        for (uint32_t inFlight : {1u, 2u, 3u, 8u}) {
            SCOPED_TRACE(std::string(hostCopy ? "host-copy" : "cuda") + ", frames in flight " +
                         std::to_string(inFlight));
            Options o;
            o.backend = Backend::Cuda;
            o.grid = {96, 64};
            o.stepsPerFrame = 2;
            o.framesInFlight = inFlight;
            const auto run = runStampedFrames(o, 120, &counter, hostCopy);
            EXPECT_EQ(run.validationMessages, 0u);
            ASSERT_EQ(run.bufferWords.size(), 120u);
            EXPECT_EQ(run.wrongFrames(), 0u);
            EXPECT_EQ(run.wrongOutputs(2), 0u) << "frames whose outputs were not their own";
        }
}

// The OpenGL consumer (#12) on the GPU: NVIDIA's OpenGL through EGL imports the ring that Vulkan
// exported and CUDA writes, and draws what the Vulkan renderer draws, with each hand-off.
TEST_F(AppGpuRun, OpenGlDrawsCudaFramesLikeTheVulkanRendererWithEveryHandoff) {
    for (const sim::SimDefinition& def : simulations()) {
        if (def.dimensions == 3) continue; // the OpenGL consumer draws 2D fields
        SCOPED_TRACE(def.name);
        const auto dir = scratchDir("app-gpu-opengl-" + def.name);
        // The OpenGL consumer draws the field, not the particles or annotations: compare fields.
        const std::string common = "--sim " + def.name +
                                   " --headless --backend cuda --validate --frames 200 --axes off "
                                   "--size 256x256 --resolution 320x240 --seed 3 " +
                                   (def.particles.max ? "--particles 0 " : "");
        const auto vk = runEstuary(common + "--screenshot '" + (dir / "vk.png").string() + "'");
        ASSERT_EQ(vk.exitCode, 0) << vk.output;
        const Rgba8Image expected = loadPng(dir / "vk.png");
        for (const char* handoff : {"timeline", "binary", "host"}) {
            SCOPED_TRACE(handoff);
            const auto shot = dir / (std::string("gl-") + handoff + ".png");
            const auto gl = runEstuary(common + "--consumer opengl --gl-handoff " + handoff +
                                       " --screenshot '" + shot.string() + "'");
            std::printf("%s\n", gl.output.c_str());
            ASSERT_EQ(gl.exitCode, 0) << gl.output;
            EXPECT_NE(gl.output.find(std::string("hand-off ") + handoff), std::string::npos);
            EXPECT_NE(gl.output.find("validation layer reported 0 message"), std::string::npos);
            EXPECT_NE(gl.output.find("OpenGL debug output reported 0 error"), std::string::npos);
            const Rgba8Image got = loadPng(shot);
            ASSERT_EQ(got.pixels.size(), expected.pixels.size());
            EXPECT_GT(countDistinctColors(got), 16u) << "the OpenGL picture is (nearly) flat";
            expectSamePictureInBothApis(got.pixels, expected.pixels,
                                        def.name + ", hand-off " + handoff);
        }
    }
}

TEST_F(AppGpuRun, EveryOpenGlDrawSamplesItsOwnCudaFrameForEachHandoffAndFramesInFlight) {
    for (const sim::SimDefinition& def : simulations())
        for (GlHandoff handoff : {GlHandoff::Timeline, GlHandoff::Binary, GlHandoff::Host})
            for (uint32_t inFlight : {1u, 2u, 3u, 4u, 8u}) {
                if (def.dimensions == 3) continue; // the OpenGL consumer draws 2D fields
                SCOPED_TRACE(def.name + ", hand-off " + glHandoffName(handoff) +
                             ", frames in flight " + std::to_string(inFlight));
                Options o;
                o.simulation = def.name;
                o.backend = Backend::Cuda;
                o.grid = {256, 256};
                o.stepsPerFrame = 4;
                o.framesInFlight = inFlight;
                o.consumer = Consumer::OpenGL;
                o.glHandoff = handoff;
                if (def.particles.max > 0) o.particles = 4096;
                std::printf("%s, hand-off %s, %u in flight\n", def.name.c_str(),
                            glHandoffName(handoff), inFlight);
                std::fflush(stdout);
                const auto run = runStampedFrames(o, 200);
                EXPECT_EQ(run.validationMessages, 0u);
                ASSERT_EQ(run.seenBefore.size(), 200u);
                EXPECT_EQ(run.wrongFrames(), 0u)
                    << "OpenGL draws that sampled another frame's image, before or after drawing";
            }
}

// Host-written frames into OpenGL (#21): the CPU backend's and the host-copy run's uploads are
// released to the external queue family and handed to NVIDIA's OpenGL by binary semaphores that
// carry the layout (GL_EXT_semaphore_fd), no host wait: the picture is the Vulkan renderer's and
// every draw sees its own frame at each depth of the pipeline.
TEST_F(AppGpuRun, HostWrittenFramesReachOpenGlReleasedAndHandedOverBySemaphores) {
    const auto dir = scratchDir("app-gpu-opengl-host");
    // The OpenGL consumer draws no annotations: the Vulkan picture without axes.
    const std::string common = "--headless --backend cpu --validate --frames 60 --size 256x256 "
                               "--resolution 320x240 --seed 3 --axes off ";
    const auto vk = runEstuary(common + "--screenshot '" + (dir / "vk.png").string() + "'");
    ASSERT_EQ(vk.exitCode, 0) << vk.output;
    const auto gl =
        runEstuary(common + "--consumer opengl --screenshot '" + (dir / "gl.png").string() + "'");
    ASSERT_EQ(gl.exitCode, 0) << gl.output;
    EXPECT_NE(gl.output.find("host-written images released to the external queue family, "
                             "handed over by semaphores"),
              std::string::npos)
        << gl.output;
    EXPECT_NE(gl.output.find("validation layer reported 0 message"), std::string::npos);
    EXPECT_NE(gl.output.find("OpenGL debug output reported 0 error"), std::string::npos);
    expectSamePictureInBothApis(loadPng(dir / "gl.png").pixels, loadPng(dir / "vk.png").pixels,
                                "host-written");
    for (bool hostCopy : {false, true})
        for (uint32_t inFlight : {1u, 2u, 3u, 8u}) {
            SCOPED_TRACE(std::string(hostCopy ? "host-copy" : "cpu") + ", frames in flight " +
                         std::to_string(inFlight));
            Options o;
            o.simulation = "gray-scott";
            o.backend = hostCopy ? Backend::Cuda : Backend::Cpu;
            o.grid = {128, 96};
            o.stepsPerFrame = 1;
            o.framesInFlight = inFlight;
            o.consumer = Consumer::OpenGL;
            const auto run = runStampedFrames(o, 120, nullptr, hostCopy);
            EXPECT_EQ(run.validationMessages, 0u);
            ASSERT_EQ(run.seenBefore.size(), 120u);
            EXPECT_EQ(run.wrongFrames(), 0u)
                << "OpenGL draws that sampled another frame's host-written image";
        }
}

// --slabs on the CUDA backend end to end: the split runs' pictures are the unsplit run's, under
// validation, for both splittable simulations, and on a machine of two GPUs or more so are
// --gpus 2's (slabs stepping on every GPU's own stream while the frames before are drawn); --gpus
// above the GPUs present is exit 3 naming how many there are.
TEST_F(AppGpuRun, SplitCudaRunsDrawTheUnsplitPictureAndMissingGpusExit3) {
    int count = 0;
    ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
    for (const char* simulation : {"gray-scott", "gray-scott-3d"}) {
        SCOPED_TRACE(simulation);
        const bool volume = std::string(simulation) == "gray-scott-3d";
        const auto dir = scratchDir(std::string("app-gpu-slabs-") + simulation);
        // Volumes gathered (the default, said here): sort-last composites, which is near the
        // gathered picture, not equal to it (the next test).
        const std::string common =
            std::string("--sim ") + simulation +
            " --headless --backend cuda --validate --frames 60 --seed 4 " +
            (volume ? "--size 96x80x70 --composite gather " : "--size 515x389 ") + "--screenshot ";
        const auto whole = runEstuary(common + "'" + (dir / "whole.png").string() + "'");
        ASSERT_EQ(whole.exitCode, 0) << whole.output;
        for (const char* slabs : {"2", "7"}) {
            const auto shot = dir / (std::string("split-") + slabs + ".png");
            const auto split =
                runEstuary(common + "'" + shot.string() + "' --slabs " + std::string(slabs));
            ASSERT_EQ(split.exitCode, 0) << split.output;
            EXPECT_NE(split.output.find(std::string("the grid in ") + slabs + " slabs"),
                      std::string::npos)
                << split.output;
            EXPECT_NE(split.output.find("validation layer reported 0 message"), std::string::npos)
                << split.output;
            EXPECT_EQ(loadPng(shot).pixels, loadPng(dir / "whole.png").pixels);
            // On one GPU the split frame's work is replayed as a CUDA graph too.
            EXPECT_NE(split.output.find("of 60 frames replayed from CUDA graphs"),
                      std::string::npos)
                << split.output;
            EXPECT_EQ(split.output.find(" 0 of 60 frames replayed"), std::string::npos)
                << split.output;
        }
        if (count < 2) continue;
        int n = 0;
        // Halos of 8 (one exchange a frame) and of 1 (eight), and every GPU count up to 8 the
        // machine has (3D on 8 GPUs: the display GPU's 2 slices), with --halo 8 in 2D.
        std::vector<std::string> splits = {
            "--gpus 2 --slabs 2",           "--gpus 2 --slabs 7", "--gpus 2 --display-share 0.37",
            "--gpus 2 --display-share 0.5", "--gpus 2 --halo 8",  "--gpus 2 --halo 1"};
        for (int g = 3; g <= std::min(count, 8); ++g) {
            splits.push_back("--gpus " + std::to_string(g));
            if (!volume) splits.push_back("--gpus " + std::to_string(g) + " --halo 8");
        }
        for (const std::string& split : splits) {
            const auto shot = dir / ("gpus-" + std::to_string(n++) + ".png");
            const auto run = runEstuary(common + "'" + shot.string() + "' " + split);
            ASSERT_EQ(run.exitCode, 0) << split << ": " << run.output;
            EXPECT_NE(run.output.find("validation layer reported 0 message"), std::string::npos)
                << run.output;
            EXPECT_TRUE(loadPng(shot).pixels == loadPng(dir / "whole.png").pixels)
                << split << " drew another picture than one GPU";
        }
    }
    const auto more = runEstuary("--headless --backend cuda --frames 2 --size 64x64 --screenshot "
                                 "/dev/null --gpus " +
                                 std::to_string(count + 1));
    EXPECT_EQ(more.exitCode, 3) << more.output;
    EXPECT_NE(more.output.find("this machine has " + std::to_string(count)), std::string::npos)
        << more.output;
}

// How far two pictures are apart: the mean over every RGB channel of the absolute difference,
// and the share of channels more than 12 levels apart.
struct PictureDistance {
    double mean = 0, far = 0;
};
PictureDistance pictureDistance(const Rgba8Image& a, const Rgba8Image& b) {
    PictureDistance d;
    size_t n = 0, far = 0;
    double sum = 0;
    for (size_t i = 0; i < a.pixels.size() && i < b.pixels.size(); ++i) {
        if (i % 4 == 3) continue;
        const int diff = std::abs(int(a.pixels[i]) - int(b.pixels[i]));
        sum += diff;
        far += diff > 12 ? 1 : 0;
        ++n;
    }
    d.mean = n ? sum / double(n) : 0;
    d.far = n ? double(far) / double(n) : 0;
    return d;
}

// --composite sort-last: each slab marched on its own (on one GPU, then across two where the
// machine has them) and composited front to back draws the gathered, whole-volume march's
// picture up to the slab faces (a slab samples its own slices only) and half-float rounding: on
// average within 1.5 levels of 255, fewer than 1% of channels more than 12 apart. A camera turned
// by 4 degrees is far outside that, so the comparison can tell pictures apart.
TEST_F(AppGpuRun, SortLastCompositingDrawsTheGatheredPictureWithinATolerance) {
    int count = 0;
    ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
    const auto dir = scratchDir("app-gpu-sort-last");
    const std::string common = "--sim gray-scott-3d --headless --backend cuda --validate "
                               "--frames 40 --seed 5 --size 128x112x96 --resolution 400x300 "
                               "--opacity 2 --axes off ";
    const auto shoot = [&](const std::string& name, const std::string& args) {
        const auto path = dir / (name + ".png");
        const auto run = runEstuary(common + args + " --screenshot '" + path.string() + "'");
        EXPECT_EQ(run.exitCode, 0) << args << ": " << run.output;
        EXPECT_NE(run.output.find("validation layer reported 0 message"), std::string::npos)
            << run.output;
        const bool sortLast = run.output.find("drawn sort-last") != std::string::npos;
        EXPECT_EQ(sortLast, args.find("sort-last") != std::string::npos)
            << args << ": " << run.output;
        return loadPng(path);
    };
    const Rgba8Image whole = shoot("whole", "");
    ASSERT_GT(countDistinctColors(whole), 64u) << "the gathered picture is (nearly) flat";
    std::vector<std::string> splits = {"--slabs 3 --composite sort-last",
                                       "--slabs 7 --composite sort-last --camera 200,-30"};
    if (count >= 2) splits.push_back("--gpus 2 --slabs 3 --composite sort-last");
    for (const std::string& split : splits) {
        SCOPED_TRACE(split);
        const bool turned = split.find("--camera") != std::string::npos;
        const Rgba8Image reference = turned ? shoot("whole-turned", "--camera 200,-30") : whole;
        const Rgba8Image composited = shoot("sort-last", split);
        const PictureDistance d = pictureDistance(composited, reference);
        std::printf("%s: mean %.3f levels, %.4f%% of channels more than 12 apart\n", split.c_str(),
                    d.mean, 100.0 * d.far);
        EXPECT_LT(d.mean, 1.5);
        EXPECT_LT(d.far, 0.01);
        if (count >= 2 && split.find("--gpus") != std::string::npos) {
            const Rgba8Image gathered = shoot("gathered", "--gpus 2 --slabs 3 --composite gather");
            EXPECT_EQ(gathered.pixels, whole.pixels) << "--gpus 2 gathered is not bit-exact";
        }
    }
    const Rgba8Image turned = shoot("turned", "--camera 39,25");
    const PictureDistance apart = pictureDistance(turned, whole);
    EXPECT_TRUE(apart.mean >= 1.5 || apart.far >= 0.01)
        << "a camera 4 degrees away came within the tolerance: mean " << apart.mean;
    // Where sort-last cannot draw, it says why.
    const auto slice = runEstuary("--sim gray-scott-3d --headless --backend cuda --frames 2 "
                                  "--view slice --slabs 2 --composite sort-last "
                                  "--screenshot /dev/null");
    EXPECT_EQ(slice.exitCode, 2) << slice.output;
    EXPECT_NE(slice.output.find("ray-marched volume view"), std::string::npos) << slice.output;
}

TEST_F(AppGpuRun, BenchRunsEveryModeAt1024SquaredWithASaneReportForEverySimulation) {
    for (const sim::SimDefinition& def : simulations()) {
        SCOPED_TRACE(def.name);
        const auto json = scratchDir("app-gpu-bench-" + def.name) / "bench.json";
        const auto r =
            runEstuary("--bench --sim " + def.name + " --backend cuda --mode all " +
                       (def.dimensions == 3 ? "--size 128x128x128 " : "--size 1024x1024 ") +
                       "--frames 400 --warmup 40 --report '" + json.string() + "'");
        std::printf("%s\n", r.output.c_str());
        ASSERT_EQ(r.exitCode, 0) << r.output;
        EXPECT_EQ(checkBenchReport(json, 400), "ok\n");
    }
}

// Each frame's CUDA work replayed as one CUDA graph (--cuda-graphs on, the default) draws exactly
// the frames that enqueuing it call by call draws, for the simulations that allow replay, and the
// benchmark's report shows which frames came from graphs: every measured pipelined frame with
// graphs on, none with them off, none for a simulation that does not replay (wave's sources move
// with time, so its work changes every frame).
TEST_F(AppGpuRun, CudaGraphReplayDrawsTheFramesCallByCallEnqueuingDraws) {
    for (const char* name : {"gray-scott", "gray-scott-3d", "wave"}) {
        SCOPED_TRACE(name);
        const bool replays = std::string(name) != "wave";
        const auto dir = scratchDir(std::string("app-gpu-graphs-") + name);
        const std::string common =
            std::string("--sim ") + name + " --backend cuda --validate " +
            (std::string(name) == "gray-scott-3d" ? "--size 48x40x32 " : "--size 300x200 ");
        std::string shots[2];
        for (const char* graphs : {"on", "off"}) {
            const std::string shot = (dir / (std::string(graphs) + ".png")).string();
            const auto run = runEstuary(common + "--headless --frames 150 --cuda-graphs " + graphs +
                                        " --screenshot '" + shot + "'");
            ASSERT_EQ(run.exitCode, 0) << run.output;
            EXPECT_NE(run.output.find("reported 0 message"), std::string::npos) << run.output;
            shots[std::string(graphs) == "off"] = shot;
            // The compared run itself replayed graphs (all but the first frame of each ring
            // entry, which captures), or none.
            unsigned replayed = 0, drawn = 0;
            const size_t line = run.output.find(" frames replayed from CUDA graphs");
            ASSERT_NE(line, std::string::npos) << run.output;
            const size_t from = run.output.rfind("estuary: ", line);
            ASSERT_EQ(
                std::sscanf(run.output.c_str() + from, "estuary: %u of %u", &replayed, &drawn), 2)
                << run.output;
            EXPECT_EQ(drawn, 150u);
            if (std::string(graphs) == "on" && replays) {
                EXPECT_GE(replayed, 150u - 16u) << run.output;
            } else {
                EXPECT_EQ(replayed, 0u) << run.output;
            }

            const auto report = dir / (std::string(graphs) + ".json");
            const auto bench = runEstuary(common +
                                          "--bench --mode pipelined --frames 120 "
                                          "--warmup 30 --cuda-graphs " +
                                          graphs + " --report '" + report.string() + "'");
            ASSERT_EQ(bench.exitCode, 0) << bench.output;
            std::ifstream in(report);
            const nlohmann::json r = nlohmann::json::parse(in);
            const auto fromGraphs = r["modes"][0]["frames_from_cuda_graphs"].get<int>();
            std::printf("%s, graphs %s: %d of 120 measured frames from CUDA graphs\n", name, graphs,
                        fromGraphs);
            EXPECT_EQ(fromGraphs, std::string(graphs) == "on" && replays ? 120 : 0);
            EXPECT_EQ(r["configuration"]["cuda_graphs"].get<bool>(), std::string(graphs) == "on");
        }
        const Rgba8Image a = loadPng(shots[0]), b = loadPng(shots[1]);
        EXPECT_GT(countDistinctColors(a), 16u);
        EXPECT_EQ(a.pixels, b.pixels) << "graph replay drew other frames than call-by-call";
    }
}

TEST_F(AppGpuRun, BenchWithTheOpenGlConsumerRunsEveryModeWithASaneReport) {
    const auto json = scratchDir("app-gpu-bench-opengl") / "bench.json";
    const auto r =
        runEstuary("--bench --backend cuda --consumer opengl --mode all --size 1024x1024 "
                   "--frames 400 --warmup 40 --report '" +
                   json.string() + "'");
    std::printf("%s\n", r.output.c_str());
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_EQ(checkBenchReport(json, 400), "ok\n");
    EXPECT_NE(r.output.find("drawn by opengl"), std::string::npos) << r.output;
}

} // namespace
} // namespace estuary::test
