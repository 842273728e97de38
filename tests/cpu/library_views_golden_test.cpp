// The markers, lines and glyph views each drawn as a whole scene on lavapipe against a golden
// picture, by the raster path and by the compute splat (the other tests probe single pixels; these
// catch what changes anywhere): every shape filled and outlined, turned and coloured through the
// colormap; a strip and indexed segments of several widths; the glyphs of a vortex.
#include "library_support.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <vector>

namespace estuary {
namespace {

constexpr uint32_t kWidth = 160, kHeight = 96;

struct Marker {
    float x, y, z, value;
    float dx, dy, dz, size;
};

// Each scene by both draw paths (under synchronization validation), against the same golden
// picture: the compute splat draws what the raster path draws (markers that do not overlap; lines
// are raster only, so both are raster).
class ViewsGolden : public LibraryTest, public ::testing::WithParamInterface<estuary_draw_path> {
  protected:
    SyncValidation sync;
    void openScene() {
        ViewerDesc d = headless(2, kWidth, kHeight);
        d.draw_path = GetParam();
        open(d);
    }
};

TEST_P(ViewsGolden, EveryMarkerShapeFilledAndOutlined) {
    openScene();
    std::vector<Marker> markers;
    for (int shape = 0; shape < 7; ++shape) {
        const float angle = 0.4f * float(shape);
        // Rows of the unit square (which the 160 x 96 picture letterboxes): filled above.
        markers.push_back({(float(shape) + 0.5f) / 7.0f, 0.3f, 0.0f, float(shape) / 6.0f,
                           std::cos(angle), std::sin(angle), 0.0f, 0.0f});
    }
    // The shape is the view's: fourteen views (seven shapes, filled and outlined), each over a
    // buffer of its one marker.
    std::vector<Buffer> buffers;
    std::vector<View> views; // after the buffers: destroyed before them
    for (int shape = 0; shape < 14; ++shape) {
        buffers.push_back(viewer->buffer({.size = sizeof(Marker), .writer = ESTUARY_WRITER_HOST}));
        estuary_markers_view_desc d{.buffer = buffers.back().get(),
                                    .shape = estuary_marker_shape(shape % 7)};
        d.size = 11.0f; // pixels: 96 across the unit square, shapes 13.7 apart
        d.line_width = 1.5f;
        d.flags = shape >= 7 ? ESTUARY_MARKERS_OUTLINE : 0u;
        views.push_back(viewer->markersView(d));
    }
    const Frame frame = viewer->beginFrame();
    for (int shape = 0; shape < 14; ++shape) {
        Marker m = markers[size_t(shape % 7)];
        if (shape >= 7) m.y = 0.7f;
        std::memcpy(frame.hostPointer(buffers[size_t(shape)]), &m, sizeof(m));
    }
    frame.end();
    expectMatchesGolden(pixels(), kWidth, kHeight, "views_markers");
}

TEST_P(ViewsGolden, AStripAndIndexedSegmentsOfSeveralWidths) {
    openScene();
    struct Vertex {
        float x, y, z, value;
    };
    std::vector<Vertex> spiral;
    for (int i = 0; i < 120; ++i) {
        const float t = float(i) / 119.0f, angle = 12.0f * t;
        spiral.push_back(
            {0.3f + 0.25f * t * std::cos(angle), 0.5f + 0.25f * t * std::sin(angle), 0.0f, t});
    }
    Buffer strip =
        viewer->buffer({.size = spiral.size() * sizeof(Vertex), .writer = ESTUARY_WRITER_HOST});
    estuary_lines_view_desc s{.vertices = strip.get(), .topology = ESTUARY_LINES_STRIP};
    s.width = 2.0f;
    const View spiralShown = viewer->linesView(s);
    // A star: its 5 points joined by indices, wider than the spiral, one colour (where lines of
    // different colours cross, the compute splat shows one colour, the raster path their blend).
    std::vector<Vertex> star;
    for (int k = 0; k < 5; ++k) {
        const float angle = 2.0f * std::numbers::pi_v<float> * float(k) / 5.0f;
        star.push_back({0.75f + 0.2f * std::sin(angle), 0.5f - 0.2f * std::cos(angle), 0.0f, 0.6f});
    }
    const std::vector<uint32_t> pentagram = {0, 2, 2, 4, 4, 1, 1, 3, 3, 0};
    Buffer starVertices =
        viewer->buffer({.size = star.size() * sizeof(Vertex), .writer = ESTUARY_WRITER_HOST});
    Buffer starIndices = viewer->buffer(
        {.size = pentagram.size() * sizeof(uint32_t), .writer = ESTUARY_WRITER_HOST});
    estuary_lines_view_desc g{.vertices = starVertices.get(),
                              .indices = starIndices.get(),
                              .topology = ESTUARY_LINES_SEGMENTS};
    g.width = 4.0f;
    g.colormap = ESTUARY_COLORMAP_MAGMA;
    const View starShown = viewer->linesView(g);
    const Frame frame = viewer->beginFrame();
    std::memcpy(frame.hostPointer(strip), spiral.data(), spiral.size() * sizeof(Vertex));
    std::memcpy(frame.hostPointer(starVertices), star.data(), star.size() * sizeof(Vertex));
    std::memcpy(frame.hostPointer(starIndices), pentagram.data(),
                pentagram.size() * sizeof(uint32_t));
    frame.end();
    expectMatchesGolden(pixels(), kWidth, kHeight, "views_lines");
}

TEST_P(ViewsGolden, TheGlyphsOfAVortex) {
    openScene();
    constexpr uint32_t kCells = 48;
    estuary_image_desc d{.format = ESTUARY_FORMAT_RG32_FLOAT,
                         .kind = ESTUARY_IMAGE_2D,
                         .width = kCells,
                         .height = kCells};
    d.writer = ESTUARY_WRITER_HOST;
    Image image = viewer->image(d);
    estuary_glyph_view_desc g{.image = image.get(), .shape = ESTUARY_MARKER_SHAPE_ARROW};
    g.spacing = 6;
    g.size = 10.0f; // pixels at full speed: glyphs 12 pixels apart do not touch
    const View shown = viewer->glyphView(g);
    const Frame frame = viewer->beginFrame();
    float* texels = frame.hostLevel<float>(image);
    for (uint32_t y = 0; y < kCells; ++y)
        for (uint32_t x = 0; x < kCells; ++x) {
            const float dx = float(x) - 24.0f, dy = float(y) - 24.0f;
            const float r = std::sqrt(dx * dx + dy * dy) + 1.0f;
            texels[2 * (y * kCells + x)] = -dy / r * std::min(r / 12.0f, 1.0f);
            texels[2 * (y * kCells + x) + 1] = dx / r * std::min(r / 12.0f, 1.0f);
        }
    frame.end();
    // Many small arrows are mostly antialiased edge, whose coverage the H100 computes up to 6/255
    // away from lavapipe's.
    expectMatchesGolden(pixels(), kWidth, kHeight, "views_glyphs", 8);
}

// Overlapping 3D markers: the later one on top by either path, and the two pictures the same but
// where the lower marker shows through the upper one's antialiased edge in the raster path.
TEST(ViewsDrawPaths, ThreeDMarkersOverlapTheSameWayByRasterAndByCompute) {
    const SyncValidation sync;
    std::vector<std::vector<uint8_t>> pictures;
    for (estuary_draw_path path : {ESTUARY_DRAW_RASTER, ESTUARY_DRAW_COMPUTE}) {
        ViewerDesc d = headless(2, kWidth, kHeight);
        d.draw_path = path;
        Viewer v(d);
        v.setCamera({.zoom = 1.0f, .yaw_degrees = 20.0f, .pitch_degrees = 10.0f});
        Buffer buffer = v.buffer({.size = 2 * sizeof(Marker), .writer = ESTUARY_WRITER_HOST});
        estuary_markers_view_desc m{.buffer = buffer.get(), .shape = ESTUARY_MARKER_SHAPE_SQUARE};
        m.size = 30.0f;
        m.flags = ESTUARY_MARKERS_3D;
        const View shown = v.markersView(m);
        const Marker markers[2] = {{-0.05f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f},
                                   {0.05f, 0.02f, 0.0f, 1.0f, 1.0f, 1.0f, 0.0f, 0.0f}};
        const Frame frame = v.beginFrame();
        std::memcpy(frame.hostPointer(buffer), markers, sizeof(markers));
        frame.end();
        std::vector<uint8_t> rgba(size_t(kWidth) * kHeight * 4);
        check(estuary_read_pixels(v.get(), rgba.data(), rgba.size()));
        EXPECT_EQ(v.close(), 0u) << "validation messages";
        pictures.push_back(std::move(rgba));
    }
    const auto at = [&](int p, uint32_t x, uint32_t y) {
        const size_t i = (size_t(y) * kWidth + x) * 4;
        return std::array<int, 3>{pictures[size_t(p)][i], pictures[size_t(p)][i + 1],
                                  pictures[size_t(p)][i + 2]};
    };
    // The middle of the picture lies in both squares: the second (viridis' end) is on top.
    EXPECT_TRUE(near(at(0, 80, 48), {253, 231, 37}, 3));
    EXPECT_TRUE(near(at(1, 80, 48), {253, 231, 37}, 3));
    const test::ImageDiff diff = test::compareRgba8(pictures[0], pictures[1], 2);
    EXPECT_LE(diff.failingFraction, 0.01) << "max diff " << diff.maxAbsDiff;
}

// ESTUARY_POINTS_SPLAT set for the test's length, then unset.
struct SplatVariantVariable {
    explicit SplatVariantVariable(const char* name) { setenv("ESTUARY_POINTS_SPLAT", name, 1); }
    ~SplatVariantVariable() { unsetenv("ESTUARY_POINTS_SPLAT"); }
    SplatVariantVariable(const SplatVariantVariable&) = delete;
    SplatVariantVariable& operator=(const SplatVariantVariable&) = delete;
};

// The points splat's variant comes from ESTUARY_POINTS_SPLAT (for benchmarks). Through the
// viewer's own frames, under synchronization validation, every variant draws the same picture, and
// the same in every frame: the resolve zeroes the sums the next frame's splat adds to, with no
// clear between; and, the points being the only view, the resolve clears the picture, which is
// the raster path's. An unknown name is an error naming the variable and the name.
TEST(ViewsDrawPaths, EveryPointsSplatVariantDrawsTheSamePictureFrameAfterFrame) {
    const SyncValidation sync;
    std::vector<float> cloud; // 3D points (x, y, z, s), a dense blob
    uint32_t h = 12345;
    const auto next = [&] {
        h ^= h << 13, h ^= h >> 17, h ^= h << 5;
        return float(h & 0xFFFF) / 65536.0f;
    };
    for (int i = 0; i < 20000; ++i) {
        const float x = next() - 0.5f, y = next() - 0.5f, z = next() - 0.5f;
        cloud.insert(cloud.end(), {0.6f * x * x * x * 8.0f, 0.6f * y, z, next()});
    }
    const auto draw = [&](const char* variant, estuary_draw_path path = ESTUARY_DRAW_COMPUTE) {
        const SplatVariantVariable chosen(variant);
        ViewerDesc d = headless(2, kWidth, kHeight);
        d.draw_path = path;
        Viewer v(d);
        Buffer buffer =
            v.buffer({.size = cloud.size() * sizeof(float), .writer = ESTUARY_WRITER_HOST});
        estuary_points_view_desc p{.buffer = buffer.get(), .layout = ESTUARY_POINTS_XYZ_SCALAR};
        p.intensity = 0.3f;
        const float box[6] = {-0.5f, -0.5f, -0.5f, 0.5f, 0.5f, 0.5f};
        std::copy(box, box + 6, p.bounds);
        const View shown = v.pointsView(p);
        std::vector<uint8_t> first;
        for (int f = 0; f < 4; ++f) {
            const Frame frame = v.beginFrame();
            std::memcpy(frame.hostPointer(buffer), cloud.data(), cloud.size() * sizeof(float));
            frame.end();
            std::vector<uint8_t> rgba(size_t(kWidth) * kHeight * 4);
            check(estuary_read_pixels(v.get(), rgba.data(), rgba.size()));
            if (f == 0)
                first = std::move(rgba);
            else
                EXPECT_EQ(rgba, first) << variant << ", frame " << f;
        }
        EXPECT_EQ(v.close(), 0u) << variant << ": validation messages";
        return first;
    };
    const std::vector<uint8_t> packed = draw("packed");
    size_t lit = 0;
    for (size_t i = 0; i < packed.size(); i += 4)
        lit += packed[i] + packed[i + 1] + packed[i + 2] > 3 * 40;
    EXPECT_GT(lit, packed.size() / 4 / 20) << "pixels the points lit";
    // The points, the only view, clear the picture in their resolve: the background too is the
    // raster path's, which clears by a pass.
    const std::vector<uint8_t> raster = draw("packed", ESTUARY_DRAW_RASTER);
    test::expectSplatDrawsTheRasterPicture(raster, packed, 0.0, 0.005,
                                           "the points alone, by compute and by raster");
    for (size_t corner : {size_t(0), packed.size() - 4}) // no point there: the background
        EXPECT_TRUE(std::equal(packed.begin() + long(corner), packed.begin() + long(corner) + 4,
                               raster.begin() + long(corner)))
            << "byte " << corner << ": " << int(packed[corner]) << " " << int(packed[corner + 1])
            << " " << int(packed[corner + 2]) << " " << int(packed[corner + 3]);
    EXPECT_EQ(draw("merged"), packed) << "merged";
    EXPECT_EQ(draw("saturated"), packed) << "saturated";

    const SplatVariantVariable bogus("fastest");
    ViewerDesc d = headless(2, kWidth, kHeight);
    d.draw_path = ESTUARY_DRAW_COMPUTE;
    Viewer v(d);
    Buffer buffer = v.buffer({.size = 64, .writer = ESTUARY_WRITER_HOST});
    try {
        const View shown = v.pointsView({.buffer = buffer.get()});
        FAIL() << "no error";
    } catch (const std::exception& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("ESTUARY_POINTS_SPLAT"), std::string::npos) << what;
        EXPECT_NE(what.find("'fastest'"), std::string::npos) << what;
    }
}

INSTANTIATE_TEST_SUITE_P(DrawPaths, ViewsGolden,
                         ::testing::Values(ESTUARY_DRAW_RASTER, ESTUARY_DRAW_COMPUTE),
                         [](const auto& path) {
                             return path.param == ESTUARY_DRAW_COMPUTE ? "Compute" : "Raster";
                         });

} // namespace
} // namespace estuary
