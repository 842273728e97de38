// Colormap tables: the shipped files load and hold matplotlib's values; malformed files are refused
// with the offending line named. Pure file parsing: no Vulkan device.
#include "colormap.h"
#include "errors.h"
#include "test_support.h"

#include <fstream>

namespace estuary {
namespace {

std::filesystem::path colormapPath(const char* name) {
    return test::binDir() / "assets" / "colormaps" / (std::string(name) + ".txt");
}

// The message of the estuary::Error that `load` throws, or "" when it does not throw.
template <typename F> std::string errorMessage(F&& load) {
    try {
        load();
    } catch (const Error& e) {
        EXPECT_EQ(exitCode(e), ExitCode::Runtime);
        return e.what();
    }
    return "";
}

std::filesystem::path writeTable(const std::string& dirName, const std::string& body) {
    const auto file = test::scratchDir(dirName) / "map.txt";
    std::ofstream(file) << "# test table\n" << body;
    return file;
}

std::string grayLines(int count) {
    std::string body;
    for (int i = 0; i < count; ++i)
        body += "0.5 0.5 0.5\n";
    return body;
}

TEST(RendererColormap, BothShippedTablesHave256EntriesInUnitRange) {
    for (const char* name : kColormapNames) {
        const auto table = loadColormapFile(colormapPath(name));
        ASSERT_EQ(table.size(), 256u) << name;
        for (const auto& rgb : table)
            for (float c : rgb) {
                EXPECT_GE(c, 0.0f) << name;
                EXPECT_LE(c, 1.0f) << name;
            }
    }
}

TEST(RendererColormap, ViridisEndsMatchMatplotlib) {
    const auto viridis = loadColormapFile(colormapPath("viridis"));
    ASSERT_EQ(viridis.size(), 256u);
    const std::array<float, 3> first{0.267f, 0.005f, 0.329f};
    const std::array<float, 3> last{0.993f, 0.906f, 0.144f};
    for (int c = 0; c < 3; ++c) {
        EXPECT_NEAR(viridis.front()[c], first[c], 1e-3f);
        EXPECT_NEAR(viridis.back()[c], last[c], 1e-3f);
    }
}

TEST(RendererColormap, TablesAreDistinct) {
    const auto viridis = loadColormapFile(colormapPath("viridis"));
    const auto magma = loadColormapFile(colormapPath("magma"));
    EXPECT_NE(viridis, magma);
    EXPECT_NEAR(magma.front()[2], 0.014f, 1e-3f); // magma starts near black
}

TEST(RendererColormap, TruncatedTableNamesTheLineWhereEntriesRunOut) {
    const auto file = writeTable("colormap-truncated", grayLines(255));
    const std::string message = errorMessage([&] { loadColormapFile(file); });
    // One comment line and 255 entries: the missing 256th entry would be line 257.
    EXPECT_NE(message.find(file.string() + ":257:"), std::string::npos) << message;
    EXPECT_NE(message.find("255 entries"), std::string::npos) << message;
}

TEST(RendererColormap, NonNumberNamesItsLine) {
    const auto file =
        writeTable("colormap-nan", grayLines(10) + "0.5 green 0.5\n" + grayLines(245));
    const std::string message = errorMessage([&] { loadColormapFile(file); });
    EXPECT_NE(message.find(file.string() + ":12:"), std::string::npos) << message;
    EXPECT_NE(message.find("green"), std::string::npos) << message;
}

TEST(RendererColormap, OutOfRangeOrExtraValuesAreRefused) {
    const auto outOfRange =
        writeTable("colormap-range", grayLines(3) + "0.5 1.5 0.5\n" + grayLines(252));
    EXPECT_NE(errorMessage([&] { loadColormapFile(outOfRange); }).find(":5:"), std::string::npos);
    const auto fourValues = writeTable("colormap-four", "0.5 0.5 0.5 0.5\n" + grayLines(255));
    EXPECT_NE(errorMessage([&] { loadColormapFile(fourValues); }).find(":2:"), std::string::npos);
    const auto tooMany = writeTable("colormap-long", grayLines(257));
    EXPECT_NE(errorMessage([&] { loadColormapFile(tooMany); }).find(":258:"), std::string::npos);
    EXPECT_EQ(loadColormapFile(writeTable("colormap-ok", grayLines(256))).size(), 256u);
}

TEST(RendererColormap, MissingFileIsNamed) {
    const auto file = test::scratchDir("colormap-missing") / "nope.txt";
    EXPECT_NE(errorMessage([&] { loadColormapFile(file); }).find(file.string()), std::string::npos);
}

TEST(RendererColormap, FindColormapReturnsTheShaderRow) {
    EXPECT_EQ(findColormap("viridis"), 0u);
    EXPECT_EQ(findColormap("magma"), 1u);
    EXPECT_EQ(findColormap("jet"), std::nullopt);
    EXPECT_EQ(findColormap(""), std::nullopt);
    EXPECT_EQ(findColormap("Viridis"), std::nullopt);
}

} // namespace
} // namespace estuary
