// The library's markers view (estuary_add_markers_view) headless on lavapipe under validation, by
// the raster path and by the compute splat:
// every shape probed at pixels inside and outside its outline, the turn along the direction,
// outlines, the antialiased edge, colours from the colormap and from RGBA bits, sizes per marker,
// scaled by the direction's length and in position units, 3D under the orbit camera, and the
// errors bad descriptions get.
#include "library_support.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace estuary {
namespace {

constexpr std::array<int, 3> kRed{255, 0, 0}, kBackground{20, 20, 26};

struct Marker {
    float x, y, z, value;
    float dx, dy, dz, size;
};

// value carrying the bits of an RGBA8 colour (ESTUARY_MARKERS_RGBA).
float rgbaBits(uint8_t r, uint8_t g, uint8_t b, uint8_t a) {
    const uint32_t bits = uint32_t(r) | uint32_t(g) << 8 | uint32_t(b) << 16 | uint32_t(a) << 24;
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
}

Marker red(float dx = 0, float dy = 0, float size = 0) {
    return {0.5f, 0.5f, 0.0f, rgbaBits(255, 0, 0, 255), dx, dy, 0.0f, size};
}

// Every test by both draw paths: the raster path and the compute splat must draw alike.
class MarkersTest : public LibraryTest, public ::testing::WithParamInterface<estuary_draw_path> {
  protected:
    Viewer& open(ViewerDesc desc) {
        desc.draw_path = GetParam();
        return LibraryTest::open(desc);
    }
    // One frame of `markers` in a markers view described by `desc` (its buffer filled in here),
    // on a 128 x 128 picture where the unit square fills the picture: position (0.5, 0.5) is the
    // corner shared by pixels (63, 63) and (64, 64). Returns the picture.
    std::vector<uint8_t> draw(estuary_markers_view_desc desc, const std::vector<Marker>& markers) {
        if (!viewer) open(headless(2, 128, 128));
        Buffer buffer = viewer->buffer(
            {.size = markers.size() * sizeof(Marker), .writer = ESTUARY_WRITER_HOST});
        desc.buffer = buffer.get();
        View view = viewer->markersView(desc);
        const Frame frame = viewer->beginFrame();
        std::memcpy(frame.hostPointer(buffer), markers.data(), markers.size() * sizeof(Marker));
        frame.end();
        std::vector<uint8_t> rgba = pixels();
        viewer->destroyView(view);
        return rgba;
    }
    // The pixel whose centre is (dx, dy) + 0.5 pixels from the markers' centre.
    std::array<int, 3> at(const std::vector<uint8_t>& rgba, int dx, int dy) {
        return pixelAt(rgba, uint32_t(64 + dx), uint32_t(64 + dy));
    }
};

estuary_markers_view_desc shapeDesc(estuary_marker_shape shape, float size = 40.0f) {
    estuary_markers_view_desc d{};
    d.shape = shape;
    d.size = size;
    d.flags = ESTUARY_MARKERS_RGBA;
    return d;
}

struct Probe {
    int dx, dy;
    bool inside;
};

TEST_P(MarkersTest, EveryShapeCoversItsOutlineAndNothingBeyond) {
    // Size 40: r = 20 pixels. Offsets are pixel corners from the centre; each probe's pixel
    // centre is half a pixel further along both axes.
    const struct {
        estuary_marker_shape shape;
        std::vector<Probe> probes;
    } cases[] = {
        {ESTUARY_MARKER_SHAPE_DISC,
         {{0, 0, true}, {12, 12, true}, {16, 16, false}, {-19, 0, true}}},
        {ESTUARY_MARKER_SHAPE_SQUARE,
         {{0, 0, true}, {16, 16, true}, {-19, -19, true}, {21, 0, false}, {0, -22, false}}},
        {ESTUARY_MARKER_SHAPE_DIAMOND,
         {{0, 0, true}, {7, 7, true}, {13, 13, false}, {17, 0, true}, {0, -17, true}}},
        // Its tip at +x (r, 0), its back edge at x = -r/2, half as tall as wide at x = 0: 0.58 r.
        {ESTUARY_MARKER_SHAPE_TRIANGLE,
         {{0, 0, true},
          {16, 0, true},
          {-9, 0, true},
          {-13, 0, false},
          {0, 9, true},
          {0, 14, false},
          {-9, -19, false}}},
        {ESTUARY_MARKER_SHAPE_CROSS,
         {{0, 0, true}, {17, 0, true}, {0, -18, true}, {11, 11, false}, {-11, 11, false}}},
        {ESTUARY_MARKER_SHAPE_RING,
         {{0, 0, false},
          {5, 5, false},
          {15, 0, true},
          {0, -16, true},
          {-16, 0, true},
          {21, 0, false}}},
        // Shaft from -r to 0.1 r, 0.12 r half wide; head from 0.1 r to the tip, 0.45 r half wide.
        {ESTUARY_MARKER_SHAPE_ARROW,
         {{-16, 0, true},
          {-16, 4, false},
          {5, 5, true},
          {5, 9, false},
          {17, 0, true},
          {22, 0, false},
          {-22, 0, false}}},
    };
    for (const auto& c : cases) {
        const std::vector<uint8_t> rgba = draw(shapeDesc(c.shape), {red()});
        for (const Probe& p : c.probes)
            EXPECT_TRUE(near(at(rgba, p.dx, p.dy), p.inside ? kRed : kBackground, 2))
                << "shape " << int(c.shape) << " at (" << p.dx << ", " << p.dy << "): expected "
                << (p.inside ? "inside" : "outside");
    }
}

TEST_P(MarkersTest, ArrowsAndTrianglesTurnAlongTheirDirection) {
    // Screen y runs down: (0, 1) points down the picture.
    const struct {
        float dx, dy;
        Probe tip, side;
    } cases[] = {{1, 0, {17, 0, true}, {0, 17, false}},
                 {0, 1, {0, 17, true}, {17, 0, false}},
                 {-1, 0, {-18, 0, true}, {0, 17, false}},
                 {0, -3, {0, -18, true}, {17, 0, false}},
                 {1, 1, {11, 11, true}, {-14, 12, false}}};
    for (estuary_marker_shape shape : {ESTUARY_MARKER_SHAPE_ARROW, ESTUARY_MARKER_SHAPE_TRIANGLE})
        for (const auto& c : cases) {
            const std::vector<uint8_t> rgba = draw(shapeDesc(shape), {red(c.dx, c.dy)});
            SCOPED_TRACE("shape " + std::to_string(int(shape)) + ", direction (" +
                         std::to_string(c.dx) + ", " + std::to_string(c.dy) + ")");
            EXPECT_TRUE(near(at(rgba, c.tip.dx, c.tip.dy), kRed, 2)) << "the tip";
            EXPECT_TRUE(near(at(rgba, c.side.dx, c.side.dy), kBackground, 2)) << "beside it";
            // The pixel mirrored through the centre: an arrow's shaft, but behind a triangle.
            const std::array<int, 3> behind = at(rgba, -c.tip.dx - 1, -c.tip.dy - 1);
            EXPECT_TRUE(near(behind, shape == ESTUARY_MARKER_SHAPE_ARROW ? kRed : kBackground, 2))
                << "behind the centre";
        }
}

TEST_P(MarkersTest, OutlinesDrawTheEdgeOnlyAndEdgesAreAntialiased) {
    estuary_markers_view_desc outline = shapeDesc(ESTUARY_MARKER_SHAPE_SQUARE);
    outline.flags |= ESTUARY_MARKERS_OUTLINE;
    outline.line_width = 3.0f;
    const std::vector<uint8_t> square = draw(outline, {red()});
    EXPECT_TRUE(near(at(square, 0, 0), kBackground, 2)) << "the inside is not filled";
    EXPECT_TRUE(near(at(square, 12, 0), kBackground, 2));
    EXPECT_TRUE(near(at(square, 19, 0), kRed, 2)) << "the edge at r = 20";
    EXPECT_TRUE(near(at(square, -20, 5), kRed, 2));
    EXPECT_TRUE(near(at(square, 23, 0), kBackground, 2));

    // A disc's rim: pixels partly covered blend red over the background; count them.
    const std::vector<uint8_t> disc = draw(shapeDesc(ESTUARY_MARKER_SHAPE_DISC), {red()});
    int partial = 0;
    for (int dy = -22; dy <= 22; ++dy)
        for (int dx = -22; dx <= 22; ++dx) {
            const int r = at(disc, dx, dy)[0];
            partial += r > kBackground[0] + 8 && r < 255 - 8;
        }
    // The circumference is ~126 pixels; a one-pixel ramp partly covers most of them.
    EXPECT_GT(partial, 60) << "the edge is not antialiased";
    EXPECT_LT(partial, 200);
}

TEST_P(MarkersTest, ColourComesFromTheColormapUnlessRgbaBitsAreAsked) {
    estuary_markers_view_desc d = shapeDesc(ESTUARY_MARKER_SHAPE_SQUARE);
    d.flags = 0;
    const std::vector<uint8_t> high = draw(d, {{0.5f, 0.5f, 0.0f, 1.0f, 0, 0, 0, 0}});
    EXPECT_TRUE(near(at(high, 0, 0), {253, 231, 37}, 3)) << "viridis' end";
    const std::vector<uint8_t> low = draw(d, {{0.5f, 0.5f, 0.0f, -4.0f, 0, 0, 0, 0}});
    EXPECT_TRUE(near(at(low, 0, 0), {68, 1, 84}, 3)) << "clamped to viridis' start";
    d.flags = ESTUARY_MARKERS_RGBA;
    const std::vector<uint8_t> half =
        draw(d, {{0.5f, 0.5f, 0.0f, rgbaBits(0, 255, 0, 128), 0, 0, 0, 0}});
    // Half-transparent green over the background.
    EXPECT_TRUE(near(at(half, 0, 0), {10, 138, 13}, 3));
}

TEST_P(MarkersTest, SizesComeFromTheViewTheMarkerTheDirectionOrPositionUnits) {
    // Per marker: size 0.5 halves the view's 40 pixels.
    const std::vector<uint8_t> own =
        draw(shapeDesc(ESTUARY_MARKER_SHAPE_SQUARE), {red(0, 0, 0.5f)});
    EXPECT_TRUE(near(at(own, 8, 0), kRed, 2));
    EXPECT_TRUE(near(at(own, 12, 0), kBackground, 2));
    // Scaled by |direction| = 0.5: also 20 pixels.
    estuary_markers_view_desc scaled = shapeDesc(ESTUARY_MARKER_SHAPE_SQUARE);
    scaled.flags |= ESTUARY_MARKERS_SCALE_BY_LENGTH;
    const std::vector<uint8_t> byLength = draw(scaled, {red(0.5f, 0.0f)});
    EXPECT_TRUE(near(at(byLength, 8, 0), kRed, 2));
    EXPECT_TRUE(near(at(byLength, 12, 0), kBackground, 2));
    // 0.25 position units across a 128-pixel unit square: 32 pixels, r = 16.
    estuary_markers_view_desc world = shapeDesc(ESTUARY_MARKER_SHAPE_SQUARE, 0.25f);
    world.flags |= ESTUARY_MARKERS_WORLD_SIZE;
    const std::vector<uint8_t> units = draw(world, {red()});
    EXPECT_TRUE(near(at(units, 14, 0), kRed, 2));
    EXPECT_TRUE(near(at(units, 18, 0), kBackground, 2));
}

TEST_P(MarkersTest, ThreeDMarkersAreDrawnUnderTheOrbitCamera) {
    open(headless(2, 128, 128));
    viewer->setCamera({.zoom = 1.0f}); // looking along +z at the unit cube's centre
    estuary_markers_view_desc d = shapeDesc(ESTUARY_MARKER_SHAPE_DISC, 20.0f);
    d.flags |= ESTUARY_MARKERS_3D;
    const std::vector<uint8_t> rgba = draw(d, {{0, 0, 0, rgbaBits(255, 0, 0, 255), 0, 0, 0, 0},
                                               {0.2f, 0, 0, rgbaBits(0, 0, 255, 255), 0, 0, 0, 0}});
    EXPECT_TRUE(near(at(rgba, 0, 0), kRed, 2)) << "the origin at the centre";
    EXPECT_TRUE(near(at(rgba, 30, 30), kBackground, 2));
    int blue = 0; // the second marker lands right of the first
    for (int dx = 12; dx < 64; ++dx)
        blue += at(rgba, dx, 0)[2] > 200;
    EXPECT_GT(blue, 10);
}

TEST_P(MarkersTest, GlyphsOfAVelocityImageTurnAndGrowWithTheVelocity) {
    // A 32 x 32 velocity image, glyphs every 16 cells: at cells (8, 8), (24, 8), (8, 24), (24, 24),
    // which the 128 x 128 picture shows 4 pixels a cell: centres at pixels (34, 34), (98, 34), ...
    open(headless(2, 128, 128));
    estuary_image_desc d{
        .format = ESTUARY_FORMAT_RG32_FLOAT, .kind = ESTUARY_IMAGE_2D, .width = 32, .height = 32};
    d.writer = ESTUARY_WRITER_HOST;
    Image image = viewer->image(d);
    estuary_glyph_view_desc g{.image = image.get(), .shape = ESTUARY_MARKER_SHAPE_ARROW};
    g.spacing = 16;
    g.size = 24.0f; // at speed 1 (value_max): r = 12 pixels
    const View shown = viewer->glyphView(g);
    const auto draw = [&](float vx, float vy) {
        const Frame frame = viewer->beginFrame();
        float* texels = frame.hostLevel<float>(image);
        for (int i = 0; i < 32 * 32; ++i) {
            texels[2 * i] = vx;
            texels[2 * i + 1] = vy;
        }
        frame.end();
        return pixels();
    };
    const std::array<int, 3> kFast{253, 231, 37}; // viridis' end: speed 1
    const auto right = draw(1.0f, 0.0f);
    for (auto [cx, cy] : {std::pair{34u, 34u}, {98u, 34u}, {34u, 98u}, {98u, 98u}}) {
        EXPECT_TRUE(near(pixelAt(right, cx + 9, cy), kFast, 3)) << "head at " << cx << "," << cy;
        EXPECT_TRUE(near(pixelAt(right, cx - 9, cy), kFast, 3)) << "tail";
        EXPECT_TRUE(near(pixelAt(right, cx, cy + 9), kBackground, 2)) << "beside";
    }
    const auto down = draw(0.0f, 1.0f); // rows down the picture
    EXPECT_TRUE(near(pixelAt(down, 34, 43), kFast, 3));
    EXPECT_TRUE(near(pixelAt(down, 43, 34), kBackground, 2));
    const auto slow = draw(0.5f, 0.0f); // half as long: r = 6
    EXPECT_FALSE(near(pixelAt(slow, 37, 34), kBackground, 2)) << "the slow arrow's head";
    EXPECT_TRUE(near(pixelAt(slow, 43, 34), kBackground, 2)) << "past it";
    const auto still = draw(0.0f, 0.0f);
    EXPECT_TRUE(near(pixelAt(still, 34, 34), kBackground, 2)) << "no velocity, no glyph";

    estuary_image_desc scalar{
        .format = ESTUARY_FORMAT_R32_FLOAT, .kind = ESTUARY_IMAGE_2D, .width = 8, .height = 8};
    scalar.writer = ESTUARY_WRITER_HOST;
    Image one = viewer->image(scalar);
    estuary_glyph_view_desc bad{.image = one.get()};
    EXPECT_REFUSED(viewer->glyphView(bad), ESTUARY_ERROR_INVALID_ARGUMENT, "2 or more channels");
    bad.image = image.get();
    bad.flags = ESTUARY_MARKERS_3D;
    EXPECT_REFUSED(viewer->glyphView(bad), ESTUARY_ERROR_INVALID_ARGUMENT, "unknown flags 16");
}

TEST_P(MarkersTest, GlyphsOfA3dVelocityImageStandWhereTheVolumeShowsTheirCells) {
    // A 9^3 image, one glyph (spacing 9) at cell (4, 4, 4): the volume's centre, which the
    // orbit camera looking along +z shows at the picture's centre.
    open(headless(2, 128, 128));
    viewer->setCamera({.zoom = 1.0f});
    estuary_image_desc volume{.format = ESTUARY_FORMAT_RGBA32_FLOAT,
                              .kind = ESTUARY_IMAGE_3D,
                              .width = 9,
                              .height = 9,
                              .depth = 9};
    volume.writer = ESTUARY_WRITER_HOST;
    Image image = viewer->image(volume);
    estuary_glyph_view_desc g{.image = image.get(), .shape = ESTUARY_MARKER_SHAPE_ARROW};
    g.spacing = 9;
    g.size = 40.0f; // r = 20 pixels at speed 1
    const View shown = viewer->glyphView(g);
    const auto draw = [&](float vx, float vy, float vz) {
        const Frame frame = viewer->beginFrame();
        float* texels = frame.hostLevel<float>(image);
        for (int i = 0; i < 9 * 9 * 9; ++i) {
            texels[4 * i] = vx;
            texels[4 * i + 1] = vy;
            texels[4 * i + 2] = vz;
            texels[4 * i + 3] = 0.0f;
        }
        frame.end();
        return pixels();
    };
    const std::array<int, 3> kFast{253, 231, 37}; // viridis' end: speed 1
    const auto right = draw(1.0f, 0.0f, 0.0f);
    EXPECT_TRUE(near(at(right, 14, 0), kFast, 3)) << "the head, right of the centre";
    EXPECT_TRUE(near(at(right, -14, 0), kFast, 3)) << "the tail";
    EXPECT_TRUE(near(at(right, 0, 14), kBackground, 2));
    const auto down = draw(0.0f, 1.0f, 0.0f); // +y: rows down, as the volume shows them
    EXPECT_TRUE(near(at(down, 0, 14), kFast, 3)) << "the head, below the centre";
    EXPECT_TRUE(near(at(down, 14, 0), kBackground, 2));
    estuary_image_desc two{.format = ESTUARY_FORMAT_RG32_FLOAT,
                           .kind = ESTUARY_IMAGE_3D,
                           .width = 4,
                           .height = 4,
                           .depth = 4};
    two.writer = ESTUARY_WRITER_HOST;
    Image twoChannels = viewer->image(two);
    EXPECT_REFUSED(viewer->glyphView({.image = twoChannels.get()}), ESTUARY_ERROR_INVALID_ARGUMENT,
                   "3D with 4");
}

TEST_P(MarkersTest, BadDescriptionsAreRefusedNamingTheValue) {
    Viewer& v = open(headless(2, 64, 64));
    Buffer buffer = v.buffer({.size = 64, .writer = ESTUARY_WRITER_HOST, .name = "two markers"});
    estuary_markers_view_desc d{.buffer = buffer.get()};
    d.shape = outOfRange<estuary_marker_shape>(7);
    EXPECT_REFUSED(v.markersView(d), ESTUARY_ERROR_INVALID_ARGUMENT, "shape 7", "arrow");
    d.shape = ESTUARY_MARKER_SHAPE_RING;
    d.count = 3;
    EXPECT_REFUSED(v.markersView(d), ESTUARY_ERROR_INVALID_ARGUMENT, "count 3", "2 markers",
                   "32 bytes");
    d.count = 0;
    d.flags = 0x1000u;
    EXPECT_REFUSED(v.markersView(d), ESTUARY_ERROR_INVALID_ARGUMENT, "unknown flags 4096");
    d.flags = 0;
    d.size = -1.0f;
    EXPECT_REFUSED(v.markersView(d), ESTUARY_ERROR_INVALID_ARGUMENT, "size -1");
    d.size = 0.0f;
    d.line_width = NAN;
    EXPECT_REFUSED(v.markersView(d), ESTUARY_ERROR_INVALID_ARGUMENT, "line_width");
    d.line_width = 0.0f;
    d.buffer = nullptr;
    EXPECT_REFUSED(v.markersView(d), ESTUARY_ERROR_INVALID_ARGUMENT, "buffer is NULL");
    d.buffer = buffer.get();
    View view = v.markersView(d);
    estuary_view_params p{};
    check(estuary_get_view_params(view.get(), &p));
    EXPECT_EQ(p.point_count, 2u) << "the buffer's markers";
    EXPECT_EQ(p.point_size, 8.0f) << "the default size";
    p.point_count = 3;
    EXPECT_REFUSED(check(estuary_set_view_params(view.get(), &p)), ESTUARY_ERROR_INVALID_ARGUMENT,
                   "markers view", "point_count 3");
}

INSTANTIATE_TEST_SUITE_P(DrawPaths, MarkersTest,
                         ::testing::Values(ESTUARY_DRAW_RASTER, ESTUARY_DRAW_COMPUTE),
                         [](const auto& path) {
                             return path.param == ESTUARY_DRAW_COMPUTE ? "Compute" : "Raster";
                         });

} // namespace
} // namespace estuary
