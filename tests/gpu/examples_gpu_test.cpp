// The samples in examples/ on a real GPU, headless under the validation layer: each runs, and its
// picture has many colours and is more than the background (an example whose simulation dies out
// or whose points saturate fails here).
#include "estuary/interop/cuda_devices.h"
#include "test_support.h"

#include <gtest/gtest.h>

namespace estuary {
namespace {

TEST(ExamplesGpu, EachCudaExampleDrawsAPicture) {
    const auto cuda = interop::listCudaDevices();
    if (cuda.devices.empty()) GTEST_SKIP() << "no NVIDIA GPU usable by CUDA here: " << cuda.problem;
    for (const char* name : {"quickstart", "nbody", "image_filter", "cellular3d", "vector_glyphs",
                             "mesh_deform", "soa_markers", "heat_slabs"}) {
        SCOPED_TRACE(name);
        const test::ExampleRun run = test::runExample(name, 120);
        ASSERT_EQ(run.result.exitCode, 0) << run.result.output;
        const size_t colours = test::countDistinctColors(run.picture, 4096);
        const double covered = test::fractionNotBackground(run.picture);
        std::printf("%s: %zu colours, %.1f%% not background\n", name, colours, 100.0 * covered);
        EXPECT_GT(colours, 100u) << "a (nearly) flat picture";
        EXPECT_GT(covered, 0.02) << "(almost) only background";
    }
}

} // namespace
} // namespace estuary
