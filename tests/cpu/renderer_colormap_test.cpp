// Colormap tables: the shipped files load and hold the published values; malformed files are
// refused with the offending line named; atlas rows from tables, stops and samples. Pure host
// code: no Vulkan device.
#include "colormap.h"
#include "errors.h"
#include "test_support.h"

#include <cmath>
#include <fstream>
#include <vector>

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

TEST(RendererColormap, EveryShippedTableLoadsWithEntriesInUnitRange) {
    for (const char* name : kColormapNames) {
        const ColormapTable table = loadColormapFile(colormapPath(name));
        const bool palette = std::string(name) == "tab10" || std::string(name) == "okabe_ito";
        EXPECT_EQ(table.categorical, palette) << name;
        EXPECT_EQ(table.entries.size(), palette ? (name[0] == 't' ? 10u : 8u) : 256u) << name;
        for (const auto& rgb : table.entries)
            for (float c : rgb) {
                EXPECT_GE(c, 0.0f) << name;
                EXPECT_LE(c, 1.0f) << name;
            }
    }
}

TEST(RendererColormap, ViridisEndsMatchMatplotlib) {
    const auto viridis = loadColormapFile(colormapPath("viridis")).entries;
    ASSERT_EQ(viridis.size(), 256u);
    const std::array<float, 3> first{0.267f, 0.005f, 0.329f};
    const std::array<float, 3> last{0.993f, 0.906f, 0.144f};
    for (int c = 0; c < 3; ++c) {
        EXPECT_NEAR(viridis.front()[c], first[c], 1e-3f);
        EXPECT_NEAR(viridis.back()[c], last[c], 1e-3f);
    }
}

// Published values: turbo's first entry (Google's table), cividis's and inferno's ends
// (matplotlib), twilight is cyclic, coolwarm's middle is a light grey, tab10 starts with
// #1f77b4, Okabe-Ito's second colour is #E69F00.
TEST(RendererColormap, NewTablesHoldThePublishedValues) {
    const auto near3 = [](const std::array<float, 3>& got, std::array<float, 3> want) {
        for (int c = 0; c < 3; ++c)
            if (std::abs(got[c] - want[c]) > 2e-3f) return false;
        return true;
    };
    EXPECT_TRUE(
        near3(loadColormapFile(colormapPath("turbo")).entries[0], {0.18995f, 0.07176f, 0.23217f}));
    EXPECT_TRUE(
        near3(loadColormapFile(colormapPath("cividis")).entries[0], {0.0f, 0.135112f, 0.304751f}));
    EXPECT_TRUE(near3(loadColormapFile(colormapPath("inferno")).entries[255],
                      {0.988362f, 0.998364f, 0.644924f}));
    EXPECT_TRUE(near3(loadColormapFile(colormapPath("plasma")).entries[0],
                      {0.050383f, 0.029803f, 0.527975f}));
    const auto twilight = loadColormapFile(colormapPath("twilight")).entries;
    for (int c = 0; c < 3; ++c)
        EXPECT_NEAR(twilight.front()[c], twilight.back()[c], 0.02f) << "twilight is cyclic";
    const auto coolwarm = loadColormapFile(colormapPath("coolwarm")).entries;
    EXPECT_LT(coolwarm.front()[0], coolwarm.front()[2]); // blue end
    EXPECT_GT(coolwarm.back()[0], coolwarm.back()[2]);   // red end
    EXPECT_NEAR(coolwarm[128][0], coolwarm[128][1], 0.05f);
    EXPECT_TRUE(near3(loadColormapFile(colormapPath("tab10")).entries[0],
                      {0x1f / 255.0f, 0x77 / 255.0f, 0xb4 / 255.0f}));
    EXPECT_TRUE(near3(loadColormapFile(colormapPath("okabe_ito")).entries[1],
                      {0xE6 / 255.0f, 0x9F / 255.0f, 0.0f}));
}

TEST(RendererColormap, TablesAreDistinct) {
    const auto viridis = loadColormapFile(colormapPath("viridis")).entries;
    const auto magma = loadColormapFile(colormapPath("magma")).entries;
    EXPECT_NE(viridis, magma);
    EXPECT_NEAR(magma.front()[2], 0.014f, 1e-3f); // magma starts near black
}

TEST(RendererColormap, APaletteRowRepeatsItsEntries) {
    const ColormapTable tab10 = loadColormapFile(colormapPath("tab10"));
    const ColormapRow row = colormapRow(tab10);
    for (uint32_t i : {0u, 3u, 13u, 255u})
        for (int c = 0; c < 3; ++c)
            EXPECT_EQ(row[i * 4 + c], uint8_t(std::lround(tab10.entries[i % 10][c] * 255.0f))) << i;
}

TEST(RendererColormap, CategoricalFileNeedsItsLineFirstAndSomeEntries) {
    EXPECT_NE(errorMessage([&] {
                  loadColormapFile(writeTable("colormap-late", grayLines(2) + "categorical\n"));
              }).find("before the entries"),
              std::string::npos);
    EXPECT_NE(errorMessage([&] {
                  loadColormapFile(writeTable("colormap-empty", "categorical\n"));
              }).find("expected 1 to 256"),
              std::string::npos);
    EXPECT_EQ(
        loadColormapFile(writeTable("colormap-3", "categorical\n" + grayLines(3))).entries.size(),
        3u);
}

TEST(RendererColormap, StopsInterpolateInSrgbValuesOrLinearLight) {
    const std::vector<ColormapStop> stops = {{0.0f, {0, 0, 0, 1}}, {1.0f, {1, 1, 1, 1}}};
    const ColormapRow srgb = colormapRowFromStops(stops, false, false);
    const ColormapRow linear = colormapRowFromStops(stops, true, false);
    EXPECT_EQ(srgb[0], 0);
    EXPECT_EQ(srgb[255 * 4], 255);
    EXPECT_NEAR(srgb[128 * 4], 128, 1);
    EXPECT_NEAR(linear[128 * 4], 188, 1); // half the light: sRGB 0.5 linear encodes to 188
    // Clamped before the first stop and after the last.
    const std::vector<ColormapStop> inner = {{0.25f, {1, 0, 0, 1}}, {0.75f, {0, 0, 1, 1}}};
    const ColormapRow clamped = colormapRowFromStops(inner, false, false);
    EXPECT_EQ(clamped[0], 255);
    EXPECT_EQ(clamped[255 * 4 + 2], 255);
}

TEST(RendererColormap, SamplesResampleLikeEvenlySpacedStops) {
    const std::vector<float> samples = {1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1};
    const std::vector<ColormapStop> stops = {
        {0.0f, {1, 0, 0, 1}}, {0.5f, {0, 1, 0, 1}}, {1.0f, {0, 0, 1, 1}}};
    const ColormapRow a = colormapRowFromSamples(samples, false, false);
    const ColormapRow b = colormapRowFromStops(stops, false, false);
    for (size_t i = 0; i < a.size(); ++i)
        EXPECT_NEAR(a[i], b[i], 1) << i;
    const ColormapRow palette = colormapRowFromSamples(samples, false, true);
    EXPECT_EQ(palette[4 * 4 + 1], 255); // entry 4 mod 3 = 1: green
}

TEST(RendererColormap, BadStopsAreRefusedNamingTheStop) {
    const auto refused = [](std::vector<ColormapStop> stops, const char* part) {
        try {
            colormapRowFromStops(stops, false, false);
        } catch (const Error& e) {
            EXPECT_EQ(e.status(), ESTUARY_ERROR_INVALID_ARGUMENT);
            EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
            return;
        }
        ADD_FAILURE() << "accepted: " << part;
    };
    refused({}, "no stops");
    refused({{0.5f, {0, 0, 0, 1}}, {0.5f, {1, 1, 1, 1}}}, "stop 1 is at 0.5");
    refused({{0.0f, {0, 0, 0, 1}}, {1.5f, {1, 1, 1, 1}}}, "positions are 0..1");
    refused({{std::nanf(""), {0, 0, 0, 1}}}, "stop 0 has a NaN position");
    refused({{0.0f, {0, std::nanf(""), 0, 1}}}, "NaN colour");
    refused({{0.0f, {0, 2, 0, 1}}}, "outside 0..1");
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
    EXPECT_EQ(loadColormapFile(writeTable("colormap-ok", grayLines(256))).entries.size(), 256u);
}

TEST(RendererColormap, MissingFileIsNamed) {
    const auto file = test::scratchDir("colormap-missing") / "nope.txt";
    EXPECT_NE(errorMessage([&] { loadColormapFile(file); }).find(file.string()), std::string::npos);
}

TEST(RendererColormap, FindColormapReturnsTheShaderRow) {
    EXPECT_EQ(findColormap("viridis"), 0u);
    EXPECT_EQ(findColormap("magma"), 1u);
    EXPECT_EQ(findColormap("turbo"), 5u);
    EXPECT_EQ(findColormap("okabe_ito"), 9u);
    EXPECT_EQ(findColormap("jet"), std::nullopt);
    EXPECT_EQ(findColormap(""), std::nullopt);
    EXPECT_EQ(findColormap("Viridis"), std::nullopt);
}

} // namespace
} // namespace estuary
