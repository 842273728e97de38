// The fluid's whole picture on the CPU backend, as a user runs it: dye (an RGBA16 float image
// through the RGB view) with particles (points pulled from the particle buffer, blended
// additively) against a golden image, with the validation layer on; and particles off, which must
// change the picture exactly where points were.
#include "png.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace estuary {
namespace {

using test::runEstuary;

// The golden picture is the field and particles alone (no axes).
const char* kFluidRun = "--sim fluid --headless --backend cpu --validate --size 64x64 --frames 40 "
                        "--resolution 192x192 --seed 5 --axes off ";

TEST(AppFluidRender, DyeWithParticlesMatchesTheGoldenImageWithoutValidationMessages) {
    const auto dir = test::scratchDir("fluid-golden");
    const auto shot = dir / "fluid.png";
    const auto r = runEstuary(std::string(kFluidRun) + "--particles 3000 --screenshot '" +
                              shot.string() + "'");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("reported 0 message"), std::string::npos) << r.output;
    const test::Rgba8Image image = test::loadPng(shot);
    const std::filesystem::path golden = ESTUARY_SOURCE_DIR "/tests/golden/fluid_dye_particles.png";
    if (const char* update = std::getenv("ESTUARY_UPDATE_GOLDEN");
        update && std::string(update) == "1") {
        writePng(golden, uint32_t(image.width), uint32_t(image.height), image.pixels.data());
        GTEST_SKIP() << "ESTUARY_UPDATE_GOLDEN=1: wrote " << golden << " instead of comparing";
    }
    const test::Rgba8Image expected = test::loadPng(golden);
    ASSERT_EQ(image.width, expected.width);
    ASSERT_EQ(image.height, expected.height);
    // The CPU fluid is deterministic (no FMA contraction, seeded); what may differ is the
    // rasterizer's filtering precision: 2/255 on all but 0.1% of pixels, 16/255 anywhere.
    const test::ImageDiff diff = test::compareRgba8(image.pixels, expected.pixels, 2);
    EXPECT_LE(diff.failingFraction, 0.001) << "max diff " << diff.maxAbsDiff << "; actual " << shot;
    EXPECT_LE(diff.maxAbsDiff, 16) << "actual " << shot;
    EXPECT_GT(test::countDistinctColors(image), 64u) << "dye and particles make many colours";
}

TEST(AppFluidRender, ParticlesAddLightWhereTheyAreAndNothingElseChanges) {
    const auto dir = test::scratchDir("fluid-particles");
    const auto with = dir / "with.png", without = dir / "without.png";
    ASSERT_EQ(
        runEstuary(std::string(kFluidRun) + "--particles 3000 --screenshot '" + with.string() + "'")
            .exitCode,
        0);
    ASSERT_EQ(
        runEstuary(std::string(kFluidRun) + "--particles 0 --screenshot '" + without.string() + "'")
            .exitCode,
        0);
    const test::Rgba8Image a = test::loadPng(with), b = test::loadPng(without);
    ASSERT_EQ(a.pixels.size(), b.pixels.size());
    size_t lit = 0, darker = 0;
    for (size_t p = 0; p < a.pixels.size(); p += 4) {
        bool any = false;
        for (size_t c = 0; c < 3; ++c) {
            any = any || a.pixels[p + c] != b.pixels[p + c];
            // Additive blending only ever adds light (the particles do not move the fluid).
            darker += a.pixels[p + c] < b.pixels[p + c];
        }
        lit += any;
    }
    EXPECT_EQ(darker, 0u) << "a particle darkened a pixel";
    // 3000 points of 1.5 pixels over 192x192 = 36864 pixels: several thousand lit, not all.
    EXPECT_GT(lit, 1000u);
    EXPECT_LT(lit, a.pixels.size() / 4 / 2);
}

TEST(AppFluidRender, ArrowsDrawTheVelocityOverThePictureOnlyWhereThereIsFlow) {
    const auto dir = test::scratchDir("fluid-arrows");
    const auto with = dir / "with.png", without = dir / "without.png";
    const std::string run = std::string(kFluidRun) + "--particles 0 --screenshot '";
    ASSERT_EQ(runEstuary(run + with.string() + "' --arrows").exitCode, 0);
    ASSERT_EQ(runEstuary(run + without.string() + "'").exitCode, 0);
    const test::Rgba8Image a = test::loadPng(with), b = test::loadPng(without);
    ASSERT_EQ(a.pixels.size(), b.pixels.size());
    size_t changed = 0;
    for (size_t p = 0; p < a.pixels.size(); p += 4)
        changed += a.pixels[p] != b.pixels[p] || a.pixels[p + 1] != b.pixels[p + 1] ||
                   a.pixels[p + 2] != b.pixels[p + 2];
    // 16 arrows over 192x192 pixels, each at most 48 pixels long: some pixels, far from all.
    EXPECT_GT(changed, 50u);
    EXPECT_LT(changed, a.pixels.size() / 4 / 4);

    const auto refused = runEstuary("--sim wave --headless --backend cpu --frames 2 --arrows");
    EXPECT_EQ(refused.exitCode, 2);
    EXPECT_NE(refused.output.find("--arrows: wave has no velocity field"), std::string::npos)
        << refused.output;
}

} // namespace
} // namespace estuary
