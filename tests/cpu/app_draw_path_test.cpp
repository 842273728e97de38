// --draw: the compute twin of every view's fragment shader draws the same picture as rasterizing
// it, through the whole app (simulation, interop-free CPU backend, particles over the field, which
// the compute path splats, the volume march and slice), with the validation layer on; and how auto
// and the refusals resolve.
#include "options.h"
#include "simulation.h"
#include "simulations.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include <string>
#include <vector>

namespace estuary {
namespace {

using test::runEstuary;

ParseOutcome parse(std::vector<const char*> args) {
    args.insert(args.begin(), "estuary");
    return parseOptions(int(args.size()), args.data());
}

// Both paths run with the validation layer's synchronization validation too: the compute draw
// reads outputs that the staged backends upload in the same command buffer, and a barrier that
// covers fragment shaders only is a hazard lavapipe's in-order execution would never show.
TEST(AppDrawPath, ComputeDrawMatchesRasterForEverySimulationAndView) {
    ASSERT_EQ(setenv("VK_LAYER_ENABLES",
                     "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT", 1),
              0);
    struct Unset {
        ~Unset() { unsetenv("VK_LAYER_ENABLES"); }
    } unset;
    for (const sim::SimDefinition& def : simulations())
        for (const sim::Visual& view : def.views) {
            SCOPED_TRACE(def.name + " / " + view.name);
            const auto dir = test::scratchDir("draw-path-" + def.name + "-" + view.name);
            const std::string size = def.dimensions == 3 ? "32x32x24" : "96x64";
            const std::string common =
                "--sim " + def.name + " --view " + view.name +
                " --headless --backend cpu --validate --frames 12 --axes off --size " + size +
                " --resolution 200x150 --seed 4 " + (def.particles.max ? "--particles 4000 " : "");
            const auto raster = runEstuary(common + "--draw raster --screenshot '" +
                                           (dir / "raster.png").string() + "'");
            ASSERT_EQ(raster.exitCode, 0) << raster.output;
            EXPECT_NE(raster.output.find("validation layer reported 0 message"), std::string::npos)
                << raster.output;
            const auto compute = runEstuary(common + "--draw compute --screenshot '" +
                                            (dir / "compute.png").string() + "'");
            ASSERT_EQ(compute.exitCode, 0) << compute.output;
            EXPECT_NE(compute.output.find("validation layer reported 0 message"), std::string::npos)
                << compute.output;
            const test::Rgba8Image a = test::loadPng(dir / "raster.png");
            const test::Rgba8Image b = test::loadPng(dir / "compute.png");
            ASSERT_EQ(a.pixels.size(), b.pixels.size());
            EXPECT_GT(test::countDistinctColors(b), 16u) << "the compute picture is (nearly) flat";
            // The shaders share every line but main, so only the rasterizer's and the compute
            // dispatch's rounding could differ: 1/255 anywhere. The axes are left out: the
            // annotation layer's two paths are compared in library_annotations_paths_test.
            const test::ImageDiff diff = test::compareRgba8(a.pixels, b.pixels, 1);
            std::printf("%s/%s: compute vs raster: max diff %d\n", def.name.c_str(),
                        view.name.c_str(), diff.maxAbsDiff);
            EXPECT_LE(diff.maxAbsDiff, 1);
        }
}

TEST(AppDrawPath, AutoIsComputeOnGpusOffscreenAndRasterOnCpusInTheWindowAndForOpenGl) {
    EXPECT_EQ(parse({"--headless"}).options.draw, DrawPath::Auto);
    EXPECT_EQ(parse({"--bench"}).options.draw, DrawPath::Auto);
    EXPECT_EQ(drawPathFor(DrawPath::Auto, false), DrawPath::Compute);
    EXPECT_EQ(drawPathFor(DrawPath::Auto, true), DrawPath::Raster);
    EXPECT_EQ(drawPathFor(DrawPath::Compute, true), DrawPath::Compute);
    EXPECT_EQ(drawPathFor(DrawPath::Raster, false), DrawPath::Raster);
    EXPECT_EQ(parse({}).options.draw, DrawPath::Raster);
    EXPECT_EQ(parse({"--headless", "--consumer", "opengl"}).options.draw, DrawPath::Raster);
    EXPECT_EQ(parse({"--headless", "--draw", "raster"}).options.draw, DrawPath::Raster);
    EXPECT_EQ(parse({"--sim", "gray-scott-3d", "--bench", "--draw", "raster"}).options.draw,
              DrawPath::Raster);
}

TEST(AppDrawPath, ComputeInTheWindowOrTheOpenGlConsumerAndUnknownPathsAreRefused) {
    const auto refused = [](const ParseOutcome& out, const std::vector<std::string>& words) {
        ASSERT_TRUE(out.exitNow);
        EXPECT_EQ(*out.exitNow, 2);
        for (const std::string& w : words)
            EXPECT_NE(out.message.find(w), std::string::npos) << out.message;
    };
    refused(parse({"--draw", "compute"}), {"--draw compute", "--headless"});
    refused(parse({"--headless", "--consumer", "opengl", "--draw", "compute"}),
            {"--draw compute", "opengl"});
    refused(parse({"--headless", "--draw", "fragment"}), {"--draw", "fragment"});
}

} // namespace
} // namespace estuary
