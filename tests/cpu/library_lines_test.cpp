// The library's lines view (estuary_add_lines_view) headless on lavapipe under validation, by the
// raster path and by the compute splat:
// segments and strips, direct and through indices (restarts, indices past the vertices), the width
// and its antialiased edge, colours blended between the ends, 3D under the orbit camera, and the
// errors bad descriptions get.
#include "library_support.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace estuary {
namespace {

constexpr std::array<int, 3> kRed{255, 0, 0}, kBackground{20, 20, 26};
constexpr uint32_t kRestart = 0xFFFFFFFFu;

struct Vertex {
    float x, y, z, value;
};

float redBits() {
    const uint32_t bits = 0xFF0000FFu; // R = 255, A = 255
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
}

Vertex red(float x, float y) {
    return {x, y, 0.0f, redBits()};
}

// Every test by both draw paths: the raster path and the compute splat must draw alike.
class LinesTest : public LibraryTest, public ::testing::WithParamInterface<estuary_draw_path> {
  protected:
    Viewer& open(ViewerDesc desc) {
        desc.draw_path = GetParam();
        return LibraryTest::open(desc);
    }
    // One frame of a lines view over `vertices` (and `indices` where given) on a 128 x 128
    // picture where the unit square fills the picture: position (x, y) is pixel (128 x, 128 y).
    std::vector<uint8_t> draw(estuary_lines_view_desc desc, const std::vector<Vertex>& vertices,
                              const std::vector<uint32_t>& indices = {}) {
        if (!viewer) open(headless(2, 128, 128));
        Buffer vertexBuffer = viewer->buffer(
            {.size = vertices.size() * sizeof(Vertex), .writer = ESTUARY_WRITER_HOST});
        std::optional<Buffer> indexBuffer;
        desc.vertices = vertexBuffer.get();
        if (!indices.empty()) {
            indexBuffer.emplace(viewer->buffer(
                {.size = indices.size() * sizeof(uint32_t), .writer = ESTUARY_WRITER_HOST}));
            desc.indices = indexBuffer->get();
        }
        View view = viewer->linesView(desc);
        const Frame frame = viewer->beginFrame();
        std::memcpy(frame.hostPointer(vertexBuffer), vertices.data(),
                    vertices.size() * sizeof(Vertex));
        if (indexBuffer)
            std::memcpy(frame.hostPointer(*indexBuffer), indices.data(),
                        indices.size() * sizeof(uint32_t));
        frame.end();
        std::vector<uint8_t> rgba = pixels();
        viewer->destroyView(view);
        return rgba;
    }
    bool isRed(const std::vector<uint8_t>& rgba, uint32_t x, uint32_t y) {
        return near(pixelAt(rgba, x, y), kRed, 2);
    }
    bool isBackground(const std::vector<uint8_t>& rgba, uint32_t x, uint32_t y) {
        return near(pixelAt(rgba, x, y), kBackground, 2);
    }
};

estuary_lines_view_desc rgbaLines(estuary_line_topology topology, float width = 4.0f) {
    estuary_lines_view_desc d{};
    d.topology = topology;
    d.width = width;
    d.flags = ESTUARY_LINES_RGBA;
    return d;
}

TEST_P(LinesTest, ASegmentCoversItsWidthAlongItsLengthWithAnAntialiasedEdge) {
    // From pixel (32, 64) to (96, 64), 4 pixels wide: rows 62..65, columns 32..95.
    const std::vector<uint8_t> rgba =
        draw(rgbaLines(ESTUARY_LINES_SEGMENTS), {red(0.25f, 0.5f), red(0.75f, 0.5f)});
    for (uint32_t y : {62u, 63u, 64u, 65u})
        for (uint32_t x : {33u, 64u, 94u})
            EXPECT_TRUE(isRed(rgba, x, y)) << x << ", " << y;
    for (uint32_t y : {60u, 67u})
        EXPECT_TRUE(isBackground(rgba, 64, y)) << "row " << y;
    EXPECT_TRUE(isBackground(rgba, 20, 64)) << "before the start";
    EXPECT_TRUE(isBackground(rgba, 100, 64)) << "past the end";

    // A slanted line: its edge pixels are partly covered.
    const std::vector<uint8_t> slanted =
        draw(rgbaLines(ESTUARY_LINES_SEGMENTS, 3.0f), {red(0.1f, 0.2f), red(0.9f, 0.6f)});
    int partial = 0, full = 0;
    for (uint32_t y = 0; y < 128; ++y)
        for (uint32_t x = 0; x < 128; ++x) {
            const int r = pixelAt(slanted, x, y)[0];
            partial += r > kBackground[0] + 8 && r < 247;
            full += r >= 253;
        }
    EXPECT_GT(full, 150) << "~103 pixels long, 3 wide";
    EXPECT_GT(partial, 100) << "the edges are not antialiased";
}

TEST_P(LinesTest, StripsJoinConsecutiveVerticesAndSegmentsTakeThemInPairs) {
    const std::vector<Vertex> corners = {red(0.25f, 0.25f), red(0.75f, 0.25f), red(0.75f, 0.75f),
                                         red(0.25f, 0.75f)};
    // Strip: top edge, right edge, bottom edge; nothing closes the left edge.
    const std::vector<uint8_t> strip = draw(rgbaLines(ESTUARY_LINES_STRIP), corners);
    EXPECT_TRUE(isRed(strip, 64, 32));
    EXPECT_TRUE(isRed(strip, 96, 64));
    EXPECT_TRUE(isRed(strip, 64, 96));
    EXPECT_TRUE(isBackground(strip, 32, 64)) << "the strip does not close";
    EXPECT_TRUE(isBackground(strip, 64, 64));
    // Segments: 0-1 (top) and 2-3 (bottom) only.
    const std::vector<uint8_t> pairs = draw(rgbaLines(ESTUARY_LINES_SEGMENTS), corners);
    EXPECT_TRUE(isRed(pairs, 64, 32));
    EXPECT_TRUE(isRed(pairs, 64, 96));
    EXPECT_TRUE(isBackground(pairs, 96, 64)) << "1-2 is no segment";
}

TEST_P(LinesTest, IndicesPickVerticesRestartStripsAndDropWhatIsPastTheVertices) {
    const std::vector<Vertex> corners = {red(0.25f, 0.25f), red(0.75f, 0.25f), red(0.75f, 0.75f),
                                         red(0.25f, 0.75f)};
    // The left edge (3-0), then a restart, then the right edge (1-2).
    const std::vector<uint8_t> strip =
        draw(rgbaLines(ESTUARY_LINES_STRIP), corners, {3, 0, kRestart, 1, 2});
    EXPECT_TRUE(isRed(strip, 32, 64));
    EXPECT_TRUE(isRed(strip, 96, 64));
    EXPECT_TRUE(isBackground(strip, 64, 32)) << "0 and 1 are split by the restart";
    EXPECT_TRUE(isBackground(strip, 64, 64));
    // Segments 0-2 (a diagonal) and 1-99 (past the four vertices: dropped).
    const std::vector<uint8_t> pairs =
        draw(rgbaLines(ESTUARY_LINES_SEGMENTS), corners, {0, 2, 1, 99});
    EXPECT_TRUE(isRed(pairs, 64, 64)) << "the diagonal";
    EXPECT_TRUE(isBackground(pairs, 96, 32)) << "vertex 1's segment";
}

TEST_P(LinesTest, ColoursBlendBetweenTheEndsThroughTheColormap) {
    estuary_lines_view_desc d = rgbaLines(ESTUARY_LINES_SEGMENTS, 6.0f);
    d.flags = 0;
    const std::vector<uint8_t> rgba = draw(d, {{0.1f, 0.5f, 0.0f, 0.0f}, {0.9f, 0.5f, 0.0f, 1.0f}});
    EXPECT_TRUE(near(pixelAt(rgba, 14, 64), {68, 1, 84}, 12)) << "viridis' start";
    EXPECT_TRUE(near(pixelAt(rgba, 113, 64), {253, 231, 37}, 12)) << "viridis' end";
    const std::array<int, 3> middle = pixelAt(rgba, 64, 64);
    EXPECT_FALSE(near(middle, {68, 1, 84}, 30));
    EXPECT_FALSE(near(middle, {253, 231, 37}, 30));
}

TEST_P(LinesTest, ThreeDLinesAreDrawnUnderTheOrbitCameraAndWidthIsAParameter) {
    open(headless(2, 128, 128));
    viewer->setCamera({.zoom = 1.0f}); // looking along +z at the unit cube's centre
    estuary_lines_view_desc d = rgbaLines(ESTUARY_LINES_SEGMENTS, 2.0f);
    d.flags |= ESTUARY_LINES_3D;
    Buffer vertices = viewer->buffer({.size = 2 * sizeof(Vertex), .writer = ESTUARY_WRITER_HOST});
    d.vertices = vertices.get();
    View view = viewer->linesView(d);
    const auto drawn = [&] {
        const Frame frame = viewer->beginFrame();
        const Vertex line[2] = {{-0.2f, 0, 0, redBits()}, {0.2f, 0, 0, redBits()}};
        std::memcpy(frame.hostPointer(vertices), line, sizeof(line));
        frame.end();
        return pixels();
    };
    const std::vector<uint8_t> thin = drawn();
    EXPECT_TRUE(isRed(thin, 64, 63) || isRed(thin, 64, 64)) << "through the centre";
    EXPECT_TRUE(isBackground(thin, 64, 58));
    view.update([](estuary_view_params& p) { p.point_size = 14.0f; });
    const std::vector<uint8_t> wide = drawn();
    EXPECT_TRUE(isRed(wide, 64, 58)) << "14 pixels wide";
    EXPECT_TRUE(isBackground(wide, 64, 50));
}

TEST_P(LinesTest, BadDescriptionsAreRefusedNamingTheValue) {
    Viewer& v = open(headless(2, 64, 64));
    Buffer vertices =
        v.buffer({.size = 64, .writer = ESTUARY_WRITER_HOST, .name = "four vertices"});
    Buffer indices = v.buffer({.size = 12, .writer = ESTUARY_WRITER_HOST, .name = "three indices"});
    estuary_lines_view_desc d{.vertices = vertices.get()};
    d.topology = outOfRange<estuary_line_topology>(2);
    EXPECT_REFUSED(v.linesView(d), ESTUARY_ERROR_INVALID_ARGUMENT, "topology 2", "strip");
    d.topology = ESTUARY_LINES_STRIP;
    d.count = 5;
    EXPECT_REFUSED(v.linesView(d), ESTUARY_ERROR_INVALID_ARGUMENT, "count 5", "4 vertices");
    d.indices = indices.get();
    d.count = 4;
    EXPECT_REFUSED(v.linesView(d), ESTUARY_ERROR_INVALID_ARGUMENT, "count 4", "3 indices");
    d.count = 0;
    d.width = -2.0f;
    EXPECT_REFUSED(v.linesView(d), ESTUARY_ERROR_INVALID_ARGUMENT, "width -2");
    d.width = 0.0f;
    d.flags = ESTUARY_MARKERS_OUTLINE;
    EXPECT_REFUSED(v.linesView(d), ESTUARY_ERROR_INVALID_ARGUMENT, "unknown flags 32");
    d.flags = 0;
    d.vertices = nullptr;
    EXPECT_REFUSED(v.linesView(d), ESTUARY_ERROR_INVALID_ARGUMENT, "vertices is NULL");
    d.vertices = vertices.get();
    View view = v.linesView(d);
    estuary_view_params p{};
    check(estuary_get_view_params(view.get(), &p));
    EXPECT_EQ(p.point_count, 3u) << "the index buffer's indices";
    EXPECT_EQ(p.point_size, 1.5f) << "the default width";
}

INSTANTIATE_TEST_SUITE_P(DrawPaths, LinesTest,
                         ::testing::Values(ESTUARY_DRAW_RASTER, ESTUARY_DRAW_COMPUTE),
                         [](const auto& path) {
                             return path.param == ESTUARY_DRAW_COMPUTE ? "Compute" : "Raster";
                         });

} // namespace
} // namespace estuary
