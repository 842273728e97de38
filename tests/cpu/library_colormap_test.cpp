// Colormaps through the C API on lavapipe: every built-in map draws the texels of its data file;
// a colormap of the caller's (stops or samples) draws the expected colours; a categorical palette
// draws integer values as exact entries (v mod n), whatever the value range; bad descriptions are
// refused naming what is wrong; and the atlas's capacity is said.
#include "colormap.h"
#include "library_support.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace estuary {
namespace {

class LibraryColormap : public LibraryTest {
  protected:
    void SetUp() override {
        open();
        image.emplace(viewer->image(hostImage(4, 4)));
        view.emplace(viewer->fieldView({.image = image->get()}));
    }
    void TearDown() override {
        view.reset();
        image.reset();
        LibraryTest::TearDown();
    }
    // The picture's centre with every texel `value`, drawn through `map` over [lo, hi].
    std::array<int, 3> draw(estuary_colormap map, float value, float lo = 0.0f, float hi = 1.0f) {
        view->update([&](estuary_view_params& p) {
            p.colormap = map;
            p.value_min = lo;
            p.value_max = hi;
        });
        const Frame frame = viewer->beginFrame();
        float* texels = frame.hostLevel<float>(*image);
        std::fill(texels, texels + 16, value);
        frame.end();
        return pixelAt(pixels(), 64, 48);
    }
    // Entry `i` of the data file's atlas row.
    static std::array<int, 3> fileEntry(const char* name, uint32_t i) {
        const ColormapRow row = colormapRow(loadColormapFile(
            test::binDir() / "assets" / "colormaps" / (std::string(name) + ".txt")));
        return {row[i * 4], row[i * 4 + 1], row[i * 4 + 2]};
    }
    std::optional<Image> image;
    std::optional<View> view;
};

TEST_F(LibraryColormap, EveryBuiltInMapDrawsItsDataFile) {
    for (uint32_t map = 0; map < kColormapCount; ++map) {
        const char* name = kColormapNames[map];
        const ColormapTable table = loadColormapFile(test::binDir() / "assets" / "colormaps" /
                                                     (std::string(name) + ".txt"));
        if (table.categorical) {
            for (uint32_t v : {0u, 1u, 5u})
                EXPECT_TRUE(near(draw(estuary_colormap(map), float(v)), fileEntry(name, v), 1))
                    << name << " value " << v;
            continue;
        }
        for (uint32_t i : {0u, 51u, 128u, 255u})
            EXPECT_TRUE(near(draw(estuary_colormap(map), float(i) / 255.0f), fileEntry(name, i), 1))
                << name << " entry " << i;
    }
}

TEST_F(LibraryColormap, CategoricalValuesDrawExactEntriesModuloTheirCount) {
    // Value range ignored: integer v is entry v mod n, rounded, negatives wrapping.
    const std::vector<std::pair<float, uint32_t>> cases = {
        {3.0f, 3}, {13.0f, 3}, {-1.0f, 9}, {9.2f, 9}, {100.0f, 0}};
    for (const auto& [value, entry] : cases) {
        const auto got = draw(ESTUARY_COLORMAP_TAB10, value, 0.0f, 1.0f);
        EXPECT_EQ(got, fileEntry("tab10", entry)) << "tab10 value " << value;
    }
    EXPECT_EQ(draw(ESTUARY_COLORMAP_OKABE_ITO, 9.0f, -5.0f, 50.0f), fileEntry("okabe_ito", 1));
}

TEST_F(LibraryColormap, AColormapFromStopsDrawsItsColours) {
    const estuary_colormap redBlue =
        viewer->colormap({{0.0f, {1, 0, 0, 1}}, {1.0f, {0, 0, 1, 1}}}, "red-blue");
    EXPECT_EQ(redBlue, ESTUARY_COLORMAP_USER_FIRST);
    EXPECT_TRUE(near(draw(redBlue, 0.0f), {255, 0, 0}, 1));
    EXPECT_TRUE(near(draw(redBlue, 1.0f), {0, 0, 255}, 1));
    EXPECT_TRUE(near(draw(redBlue, 0.5f), {128, 0, 127}, 2)); // blended in sRGB values
    const estuary_colormap linear =
        viewer->colormap({{0.0f, {1, 0, 0, 1}}, {1.0f, {0, 0, 1, 1}}}, "red-blue linear",
                         ESTUARY_COLORMAP_LINEAR_BLEND);
    EXPECT_TRUE(near(draw(linear, 0.5f), {188, 0, 188}, 2)); // blended in linear light
    // Ranges apply to user maps as to built-in ones.
    EXPECT_TRUE(near(draw(redBlue, 10.0f, 10.0f, 20.0f), {255, 0, 0}, 1));
}

TEST_F(LibraryColormap, APaletteFromSamplesDrawsExactEntries) {
    const uint8_t rgba[] = {10, 20, 30, 255, 200, 100, 50, 255, 0, 255, 0, 255};
    estuary_colormap_desc d{};
    d.name = "three";
    d.flags = ESTUARY_COLORMAP_CATEGORICAL;
    d.samples = rgba;
    d.sample_count = 3;
    d.sample_format = ESTUARY_COLORMAP_SAMPLES_RGBA8;
    const estuary_colormap three = viewer->createColormap(d);
    EXPECT_EQ(draw(three, 4.0f), (std::array<int, 3>{200, 100, 50}));
    EXPECT_EQ(draw(three, 2.0f), (std::array<int, 3>{0, 255, 0}));
    // Float samples, continuous: resampled over the range.
    const float ramp[] = {0, 0, 0, 1, 1, 1, 1, 1};
    estuary_colormap_desc f{};
    f.samples = ramp;
    f.sample_count = 2;
    f.sample_format = ESTUARY_COLORMAP_SAMPLES_RGBA32F;
    const estuary_colormap gray = viewer->createColormap(f);
    EXPECT_TRUE(near(draw(gray, 1.0f), {255, 255, 255}, 1));
    EXPECT_TRUE(near(draw(gray, 0.0f), {0, 0, 0}, 1));
}

TEST_F(LibraryColormap, BadDescriptionsAreRefusedSayingWhy) {
    Viewer& v = *viewer;
    const auto create = [&](const estuary_colormap_desc& d) { return v.createColormap(d); };
    estuary_colormap_desc none{};
    EXPECT_REFUSED(create(none), ESTUARY_ERROR_INVALID_ARGUMENT, "no stops and no samples");
    const estuary_colormap_stop twoAtOnce[] = {{0.5f, {0, 0, 0, 1}}, {0.5f, {1, 1, 1, 1}}};
    estuary_colormap_desc d{};
    d.stops = twoAtOnce;
    d.stop_count = 2;
    EXPECT_REFUSED(create(d), ESTUARY_ERROR_INVALID_ARGUMENT, "stop 1", "must increase");
    const estuary_colormap_stop outside[] = {{-0.5f, {0, 0, 0, 1}}};
    d.stops = outside;
    d.stop_count = 1;
    EXPECT_REFUSED(create(d), ESTUARY_ERROR_INVALID_ARGUMENT, "stop 0", "0..1");
    const estuary_colormap_stop nan[] = {{0.0f, {0, std::nanf(""), 0, 1}}};
    d.stops = nan;
    EXPECT_REFUSED(create(d), ESTUARY_ERROR_INVALID_ARGUMENT, "NaN");
    d.stop_count = 0;
    EXPECT_REFUSED(create(d), ESTUARY_ERROR_INVALID_ARGUMENT, "stop_count is 0");
    const float sample[] = {0, 0, 0, 1};
    d.stop_count = 1;
    d.samples = sample;
    d.sample_count = 1;
    EXPECT_REFUSED(create(d), ESTUARY_ERROR_INVALID_ARGUMENT, "not both");
    estuary_colormap_desc s{};
    s.samples = sample;
    s.sample_count = 1;
    s.sample_format = outOfRange<estuary_colormap_samples>(7);
    EXPECT_REFUSED(create(s), ESTUARY_ERROR_INVALID_ARGUMENT, "sample_format 7");
    s.sample_format = ESTUARY_COLORMAP_SAMPLES_RGBA32F;
    s.flags = 0x80;
    EXPECT_REFUSED(create(s), ESTUARY_ERROR_INVALID_ARGUMENT, "unknown bits");
    estuary_colormap made{};
    EXPECT_EQ(estuary_create_colormap(v.get(), nullptr, &made), ESTUARY_ERROR_INVALID_ARGUMENT);
    s.flags = 0;
    EXPECT_EQ(estuary_create_colormap(v.get(), &s, nullptr), ESTUARY_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(estuary_create_colormap(nullptr, &s, &made), ESTUARY_ERROR_INVALID_ARGUMENT);
    estuary_colormap_desc small = s;
    small.struct_size = 8;
    EXPECT_EQ(estuary_create_colormap(v.get(), &small, &made), ESTUARY_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(estuary_last_error()).find("struct_size"), std::string::npos);
    // A colormap value the viewer has not made is refused where views take one.
    EXPECT_REFUSED(view->update([](estuary_view_params& p) { p.colormap = estuary_colormap(40); }),
                   ESTUARY_ERROR_INVALID_ARGUMENT, "colormap 40");
}

TEST_F(LibraryColormap, TheAtlasHoldsFiftyFourOfYoursAndSaysSo) {
    const estuary_colormap_stop one[] = {{0.0f, {0.5f, 0.5f, 0.5f, 1}}};
    estuary_colormap_desc d{};
    d.stops = one;
    d.stop_count = 1;
    for (uint32_t i = 0; i < kColormapAtlasRows - kColormapCount; ++i)
        EXPECT_EQ(viewer->createColormap(d), estuary_colormap(kColormapCount + i));
    EXPECT_REFUSED(viewer->createColormap(d), ESTUARY_ERROR_INVALID_ARGUMENT, "64 colormaps",
                   "54 of yours");
    // The last one made draws.
    EXPECT_TRUE(near(draw(estuary_colormap(kColormapAtlasRows - 1), 0.3f), {128, 128, 128}, 1));
}

} // namespace
} // namespace estuary
