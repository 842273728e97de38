// PNG output: what writePng writes reads back identically; failures name the path. Pure file
// output: no Vulkan device.
#include "errors.h"
#include "png.h"
#include "test_support.h"

#include <fstream>

namespace estuary {
namespace {

TEST(RendererPng, RoundTripPreservesEveryPixel) {
    const uint32_t width = 37, height = 23; // odd sizes: rows are not padded
    std::vector<uint8_t> rgba(size_t(width) * height * 4);
    for (size_t i = 0; i < rgba.size(); ++i)
        rgba[i] = static_cast<uint8_t>((i * 7919u) >> 3);
    const auto file = test::scratchDir("png-roundtrip") / "nested" / "dir" / "out.png";
    writePng(file, width, height, rgba.data());
    const test::Rgba8Image loaded = test::loadPng(file);
    EXPECT_EQ(loaded.width, int(width));
    EXPECT_EQ(loaded.height, int(height));
    EXPECT_EQ(loaded.pixels, rgba);
}

TEST(RendererPng, UnwritablePathThrowsNamingThePath) {
    // A regular file where a folder should be: fails even for root, unlike permission bits.
    const auto dir = test::scratchDir("png-unwritable");
    std::ofstream(dir / "not-a-dir") << "x";
    const auto file = dir / "not-a-dir" / "out.png";
    const std::vector<uint8_t> rgba(4 * 4 * 4, 128);
    try {
        writePng(file, 4, 4, rgba.data());
        FAIL() << "writePng into " << file << " did not throw";
    } catch (const Error& e) {
        EXPECT_EQ(exitCode(e), ExitCode::Runtime);
        EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
    }
}

} // namespace
} // namespace estuary
