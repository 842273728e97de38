#include "library_support.h"
#include "png.h"

#include <cstdlib>
#include <filesystem>

namespace estuary {

void expectMatchesGolden(const std::vector<uint8_t>& rgba, uint32_t width, uint32_t height,
                         const std::string& name, int tolerance) {
    const std::filesystem::path golden =
        std::filesystem::path(ESTUARY_SOURCE_DIR) / "tests/golden" / (name + ".png");
    if (const char* update = std::getenv("ESTUARY_UPDATE_GOLDEN");
        update && std::string(update) == "1") {
        writePng(golden, width, height, rgba.data());
        GTEST_SKIP() << "ESTUARY_UPDATE_GOLDEN=1: wrote " << golden << " instead of comparing";
    }
    const test::Rgba8Image expected = test::loadPng(golden);
    ASSERT_EQ(expected.width, int(width));
    ASSERT_EQ(expected.height, int(height));
    const test::ImageDiff diff = test::compareRgba8(rgba, expected.pixels, tolerance);
    ::testing::Test::RecordProperty("maxAbsDiff", diff.maxAbsDiff);
    ::testing::Test::RecordProperty("failingFraction", std::to_string(diff.failingFraction));
    EXPECT_LE(diff.failingFraction, 0.005) << name << ": max diff " << diff.maxAbsDiff;
    EXPECT_LE(diff.maxAbsDiff, 48) << name;
    if (diff.failingFraction > 0.005 || diff.maxAbsDiff > 48) {
        const auto actual = test::scratchDir("golden") / (name + ".actual.png");
        writePng(actual, width, height, rgba.data());
        ADD_FAILURE() << "actual picture written to " << actual;
    }
}

} // namespace estuary
