// The annotation layer drawn by compute (ESTUARY_DRAW_COMPUTE: tiles for the panels' axes, grid,
// titles, colorbars and text views; coverage and resolve for labels views) against the same
// frame drawn by raster (ESTUARY_DRAW_RASTER), headless on lavapipe under validation with its
// synchronization checks: two panels, one with 2D axes, grid, a title, a colorbar, a text view
// and 2D labels over a field, the other with 3D labels and a colorbar. The pictures agree but
// where labels' glyphs overlap (compute keeps the largest coverage of the view's glyphs, raster
// blends one over the other) and for 8-bit rounding, and both draw the same labels.
#include "library_support.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace estuary {
namespace {

struct Anchor {
    float x, y, z;
    uint32_t string;
};

class AnnotationPaths : public LibraryTest {
  protected:
    std::vector<uint8_t> scene(estuary_draw_path path) {
        ViewerDesc d = headless(2, 384, 256);
        d.draw_path = path;
        Viewer& v = open(d);
        v.setLayout(1, 2);
        estuary_panel_desc axes{};
        axes.flags = ESTUARY_PANEL_AXES | ESTUARY_PANEL_GRID;
        axes.title = "Gray-Scott u";
        axes.axis_titles[0] = "x [mm]";
        axes.axis_titles[1] = "y [mm]";
        v.setPanel(0, axes);
        Image field = v.image(hostImage(32, 32, "u"));
        const View fieldView = v.fieldView({.image = field.get()});
        estuary_text_view_desc text{};
        text.text = "t = 1.25 s";
        text.position[0] = 30.0f, text.position[1] = 60.0f;
        text.size = 13.0f;
        const View textView = v.textView(text);
        std::vector<Anchor> flat, deep;
        for (uint32_t i = 0; i < 24; ++i) {
            flat.push_back({2.0f + float(i % 6) * 5.0f, 3.0f + float(i / 6) * 7.0f, 0.0f, i % 3});
            const float a = 0.26f * float(i);
            deep.push_back({0.4f * std::cos(a), 0.4f * std::sin(a), 0.3f * std::sin(2 * a), i % 3});
        }
        Buffer flatBuffer =
            v.buffer({.size = flat.size() * sizeof(Anchor), .writer = ESTUARY_WRITER_HOST});
        Buffer deepBuffer =
            v.buffer({.size = deep.size() * sizeof(Anchor), .writer = ESTUARY_WRITER_HOST});
        estuary_labels_view_desc labels{};
        labels.buffer = flatBuffer.get();
        labels.count = uint32_t(flat.size());
        labels.size = 11.0f;
        labels.color[0] = 1.0f, labels.color[1] = 0.9f, labels.color[2] = 0.3f;
        labels.color[3] = 1.0f;
        const View flatLabels = v.labelsView(labels, {"vortex", "A7", "Q"});
        labels.buffer = deepBuffer.get();
        labels.count = uint32_t(deep.size());
        labels.size = 15.0f;
        labels.flags = ESTUARY_LABELS_3D;
        labels.color[0] = 0.6f, labels.color[1] = 1.0f, labels.color[2] = 1.0f;
        const View deepLabels = v.labelsView(labels, {"p", "boid 12", "W"});
        deepLabels.setPanel(1);
        Image volumeless = v.image(hostImage(32, 32, "v"));
        const View other = v.fieldView({.image = volumeless.get()});
        other.setPanel(1);
        for (int frame = 0; frame < 2; ++frame) { // the second frame reuses what the first made
            const Frame f = v.beginFrame();
            float* u = f.hostLevel<float>(field);
            for (int i = 0; i < 32 * 32; ++i)
                u[i] = 0.2f + 0.6f * float(i % 32) / 31.0f;
            std::fill_n(f.hostLevel<float>(volumeless), 32 * 32, 0.1f);
            std::memcpy(f.hostPointer(flatBuffer), flat.data(), flat.size() * sizeof(Anchor));
            std::memcpy(f.hostPointer(deepBuffer), deep.data(), deep.size() * sizeof(Anchor));
            f.end();
        }
        v.finish();
        EXPECT_EQ(v.info().draw_path, path);
        std::vector<uint8_t> rgba = pixels();
        EXPECT_EQ(viewer->close(), 0u) << "validation messages (printed above)";
        viewer.reset();
        return rgba;
    }
};

// The pixels of the w x h block at (x, y) near `colour` (within 40 levels in each channel).
size_t near(const std::vector<uint8_t>& rgba, uint32_t x, uint32_t y, uint32_t w, uint32_t h,
            std::array<int, 3> colour) {
    size_t n = 0;
    for (uint32_t row = y; row < y + h; ++row)
        for (uint32_t col = x; col < x + w; ++col) {
            const uint8_t* p = &rgba[(size_t(row) * 384 + col) * 4];
            bool close = true;
            for (size_t c = 0; c < 3; ++c)
                close &= std::abs(int(p[c]) - colour[c]) <= 40;
            n += close;
        }
    return n;
}

TEST_F(AnnotationPaths, TheComputeLayerDrawsWhatTheRasterPassDrawsButWhereLabelsOverlap) {
    const SyncValidation sync;
    const std::vector<uint8_t> raster = scene(ESTUARY_DRAW_RASTER);
    const std::vector<uint8_t> compute = scene(ESTUARY_DRAW_COMPUTE);
    ASSERT_EQ(raster.size(), compute.size());
    size_t over3 = 0, over32 = 0;
    for (size_t i = 0; i < raster.size(); i += 4) {
        int d = 0;
        for (size_t c = 0; c < 3; ++c)
            d = std::max(d, std::abs(int(raster[i + c]) - int(compute[i + c])));
        over3 += d > 3;
        over32 += d > 32;
    }
    const double pixels = double(raster.size() / 4);
    // Measured on lavapipe: 171 and 14 of 98304.
    EXPECT_LT(double(over3), 0.005 * pixels) << over3 << " pixels more than 3 levels apart";
    EXPECT_LT(double(over32), 0.001 * pixels) << over32 << " pixels more than 32 levels apart";
    // Both draw the 2D labels (yellow) in panel 0 and the 3D ones (cyan) in panel 1, as much.
    const std::array<int, 3> yellow{255, 230, 77}, cyan{153, 255, 255};
    const size_t flatRaster = near(raster, 0, 0, 192, 256, yellow);
    const size_t deepRaster = near(raster, 192, 0, 192, 256, cyan);
    ASSERT_GT(flatRaster, 100u) << "raster drew no 2D labels";
    ASSERT_GT(deepRaster, 100u) << "raster drew no 3D labels";
    EXPECT_NEAR(double(near(compute, 0, 0, 192, 256, yellow)) / double(flatRaster), 1.0, 0.05);
    EXPECT_NEAR(double(near(compute, 192, 0, 192, 256, cyan)) / double(deepRaster), 1.0, 0.05);
}

} // namespace
} // namespace estuary
