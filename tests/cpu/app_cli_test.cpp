// estuary's command line: the parser's rules (pure) and the executable's exit codes and messages,
// plus headless runs of the CPU backend under the validation layer (lavapipe where there is no
// GPU).
#include "options.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace estuary {
namespace {

ParseOutcome parse(std::vector<const char*> args) {
    args.insert(args.begin(), "estuary");
    return parseOptions(int(args.size()), args.data());
}

TEST(AppOptions, DefaultsAreUsable) {
    const auto out = parse({});
    EXPECT_FALSE(out.exitNow);
    EXPECT_EQ(out.options.grid.width, 512u);
    EXPECT_EQ(out.options.backend, Backend::Auto);
    EXPECT_EQ(out.options.framesInFlight, 2u);
    EXPECT_FALSE(out.options.validate);
}

TEST(AppOptions, EveryOptionIsParsed) {
    const auto out = parse({"--headless",
                            "--frames",
                            "12",
                            "--size",
                            "300x200",
                            "--resolution",
                            "64x48",
                            "--steps-per-frame",
                            "3",
                            "--backend",
                            "cpu",
                            "--device",
                            "1",
                            "--colormap",
                            "magma",
                            "--screenshot",
                            "x.png",
                            "--validate",
                            "--frames-in-flight",
                            "4",
                            "--seed",
                            "9"});
    ASSERT_FALSE(out.exitNow) << out.message;
    const Options& o = out.options;
    EXPECT_TRUE(o.headless);
    EXPECT_EQ(o.frames, 12u);
    EXPECT_EQ(o.grid.width, 300u);
    EXPECT_EQ(o.grid.height, 200u);
    EXPECT_EQ(o.resolution.width, 64u);
    EXPECT_EQ(o.stepsPerFrame, 3);
    EXPECT_EQ(o.backend, Backend::Cpu);
    EXPECT_EQ(o.device, 1);
    EXPECT_EQ(o.colormap, "magma");
    EXPECT_EQ(o.screenshot, "x.png");
    EXPECT_TRUE(o.validate);
    EXPECT_EQ(o.framesInFlight, 4u);
    EXPECT_EQ(o.seed, 9u);
}

TEST(AppOptions, ExtentParserAcceptsOnlyWxHInRange) {
    EXPECT_TRUE(parseExtent("1x1", 1, 10));
    EXPECT_TRUE(parseExtent("10x3", 1, 10));
    for (const char* bad :
         {"", "x", "10", "0x5", "5x0", "11x2", "2x11", "3x4x5", "ax3", "3x-1", " 3x3", "3x3 "})
        EXPECT_FALSE(parseExtent(bad, 1, 10)) << bad;
}

struct BadUsage {
    std::vector<const char*> args;
    std::vector<const char*> mentions; // the message names option, value and what is allowed
};

TEST(AppOptions, BadValuesExitWith2NamingOptionValueAndAllowed) {
    const BadUsage cases[] = {
        {{"--size", "0x5"}, {"--size", "0x5", "1..16384"}},
        {{"--size", "big"}, {"--size", "big", "WxH"}},
        {{"--frames", "abc"}, {"--frames", "abc"}},
        {{"--frames", "0"}, {"--frames", "0", "1"}},
        {{"--backend", "gpu"}, {"--backend", "gpu", "cuda"}},
        {{"--colormap", "jet"}, {"--colormap", "jet", "viridis", "magma"}},
        {{"--frames-in-flight", "9"}, {"--frames-in-flight", "9", "8"}},
        {{"--steps-per-frame", "-1"}, {"--steps-per-frame", "-1"}},
        {{"--bogus"}, {"--bogus"}},
    };
    for (const auto& c : cases) {
        const auto out = parse(c.args);
        SCOPED_TRACE(c.args[0]);
        ASSERT_TRUE(out.exitNow);
        EXPECT_EQ(*out.exitNow, 2);
        for (const char* m : c.mentions)
            EXPECT_NE(out.message.find(m), std::string::npos)
                << "message lacks '" << m << "': " << out.message;
    }
}

TEST(AppOptions, HelpAndVersionExitWith0) {
    const auto help = parse({"--help"});
    ASSERT_TRUE(help.exitNow);
    EXPECT_EQ(*help.exitNow, 0);
    EXPECT_NE(help.message.find("--backend"), std::string::npos);
    EXPECT_NE(help.message.find("Exit codes"), std::string::npos);
    const auto version = parse({"--version"});
    ASSERT_TRUE(version.exitNow);
    EXPECT_EQ(*version.exitNow, 0);
    EXPECT_NE(version.message.find("estuary 0."), std::string::npos);
}

using test::runEstuary;

TEST(AppRun, BadOptionExitsWith2AndSaysWhy) {
    const auto r = runEstuary("--headless --size 3y4");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("--size"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("3y4"), std::string::npos) << r.output;
}

TEST(AppRun, WindowWithoutDisplaySuggestsHeadlessAndExits3) {
    // Hide any display (Xvfb under ctest) from the child for this one run.
    std::vector<std::pair<const char*, std::string>> saved;
    for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY"})
        if (const char* value = std::getenv(name)) {
            saved.emplace_back(name, value);
            unsetenv(name);
        }
    const auto r = runEstuary("--frames 1 --backend cpu");
    for (const auto& [name, value] : saved)
        setenv(name, value.c_str(), 1);
    EXPECT_EQ(r.exitCode, 3) << r.output;
    EXPECT_NE(r.output.find("--headless"), std::string::npos) << r.output;
}

TEST(AppRun, CudaBackendWithoutUsableGpuExits3WithTheReason) {
    // Meaningful only where no NVIDIA GPU is usable; on a GPU machine the GPU suite covers cuda.
    const auto probe = runEstuary("--headless --backend cuda --frames 1 --size 16x16 "
                                  "--resolution 16x16 --screenshot /dev/null");
    if (probe.exitCode == 0) GTEST_SKIP() << "CUDA works here; the GPU suite covers --backend cuda";
    EXPECT_EQ(probe.exitCode, 3) << probe.output;
    EXPECT_NE(probe.output.find("--backend cuda cannot run"), std::string::npos) << probe.output;
}

TEST(AppRun, HeadlessCpuRunWithValidationIsCleanAndDrawsAPicture) {
    const auto dir = test::scratchDir("app-run");
    const auto shot = dir / "shot.png";
    const auto r = runEstuary("--headless --backend cpu --validate --frames 40 --size 128x96 "
                              "--resolution 160x120 --screenshot '" +
                              shot.string() + "'");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("backend cpu"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("reported 0 message"), std::string::npos) << r.output;
    const auto image = test::loadPng(shot);
    EXPECT_EQ(image.width, 160);
    EXPECT_EQ(image.height, 120);
    EXPECT_GT(test::countDistinctColors(image), 16u) << "the screenshot is (nearly) uniform";
}

TEST(AppRun, SameSeedGivesTheSameScreenshotAndAnotherSeedDoesNot) {
    const auto dir = test::scratchDir("app-seed");
    auto shot = [&](const char* name, int seed, int framesInFlight) {
        const auto path = dir / name;
        const auto r =
            runEstuary("--headless --backend cpu --frames 20 --size 96x96 "
                       "--resolution 96x96 --seed " +
                       std::to_string(seed) + " --frames-in-flight " +
                       std::to_string(framesInFlight) + " --screenshot '" + path.string() + "'");
        EXPECT_EQ(r.exitCode, 0) << r.output;
        return test::loadPng(path);
    };
    const auto a = shot("a.png", 5, 2);
    const auto b = shot("b.png", 5, 3); // frames in flight must not change what is drawn
    const auto c = shot("c.png", 6, 2);
    EXPECT_EQ(a.pixels, b.pixels);
    EXPECT_NE(a.pixels, c.pixels);
}

} // namespace
} // namespace estuary
