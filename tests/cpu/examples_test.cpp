// The samples in examples/ as built beside the tests, run headless under the validation layer:
// each draws a picture (many colours, more than the background) or, for the CUDA ones on a
// machine without a usable NVIDIA GPU, exits 3 saying so. The GPU suite runs them all for real.
#include "test_support.h"

#include <gtest/gtest.h>

namespace estuary {
namespace {

TEST(Examples, EachDrawsItsPictureOrSaysWhyThisMachineCannot) {
    for (const char* name : {"c_field", "quickstart", "nbody", "image_filter", "cellular3d",
                             "vector_glyphs", "mesh_deform", "soa_markers", "heat_slabs"}) {
        SCOPED_TRACE(name);
        if (!std::filesystem::exists(test::binDir() / (std::string("example_") + name))) {
            EXPECT_NE(std::string(name), "c_field") << "the C example is built everywhere";
            continue; // the CUDA examples need a CUDA build
        }
        const test::ExampleRun run = test::runExample(name, 20);
        if (run.result.exitCode == 3 && std::string(name) != "c_field") {
            EXPECT_NE(run.result.output.find("CUDA"), std::string::npos) << run.result.output;
            continue;
        }
        ASSERT_EQ(run.result.exitCode, 0) << run.result.output;
        EXPECT_GT(test::countDistinctColors(run.picture), 100u) << "a (nearly) flat picture";
        EXPECT_GT(test::fractionNotBackground(run.picture), 0.05) << "(almost) only background";
    }
}

} // namespace
} // namespace estuary
