// Picking the buffer views' elements (estuary_frame_pick) headless on lavapipe under validation
// (synchronization checks on), with the raster path and with the compute splat: the element
// covering a point, the one on top where several do, the nearest within the radius and its
// distance, none beyond it; a marker's turned shape; a segment's nearest vertex and interpolated
// value through an index buffer; a mesh's nearest triangle in depth and the point hit on it; the
// glyphs' cells and speeds; points in 2D; hidden views; several picks in one frame; and the
// errors bad arguments get.
#include "library_support.h"
#include "volume_camera.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace estuary {
namespace {

struct Marker {
    float x, y, z, value;
    float dx, dy, dz, size;
};
struct Vertex {
    float x, y, z, value;
};

// Every test with both draw paths: the pick places elements as either path draws them.
class PickTest : public LibraryTest, public ::testing::WithParamInterface<estuary_draw_path> {
  protected:
    // A 128 x 128 picture where the 2D views' unit square fills it: position (x, y) at pixel
    // (128 x, 128 y), rows down.
    Viewer& open() {
        ViewerDesc desc = headless(2, 128, 128);
        desc.draw_path = GetParam();
        return LibraryTest::open(desc);
    }
    SyncValidation sync;
};

template <class T> Buffer hostBuffer(Viewer& v, const std::vector<T>& items, const char* name) {
    return v.buffer(
        {.size = items.size() * sizeof(T), .writer = ESTUARY_WRITER_HOST, .name = name});
}

template <class T>
void upload(const Frame& frame, const Buffer& buffer, const std::vector<T>& items) {
    std::memcpy(frame.hostPointer(buffer), items.data(), items.size() * sizeof(T));
}

TEST_P(PickTest, MarkersAreFoundWhereTheyAreDrawnTheTopmostFirst) {
    Viewer& v = open();
    // Discs 20 pixels across (r = 10): A at pixel (32, 32), B at (96, 32), and C at (64, 96)
    // under D at (67.2, 96), which comes later in the buffer and so is drawn over C.
    const std::vector<Marker> markers = {{0.25f, 0.25f, 0, 0.1f, 0, 0, 0, 0},
                                         {0.75f, 0.25f, 0, 0.2f, 0, 0, 0, 0},
                                         {0.5f, 0.75f, 0, 0.3f, 0, 0, 0, 0},
                                         {0.525f, 0.75f, 0, 0.4f, 0, 0, 0, 0}};
    Buffer buffer = hostBuffer(v, markers, "markers");
    estuary_markers_view_desc d{.buffer = buffer.get(), .shape = ESTUARY_MARKER_SHAPE_DISC};
    d.size = 20.0f;
    d.label = "discs";
    View view = v.markersView(d);
    estuary_pick onA{}, nearA{}, shortOfA{}, overlap{}, onC{}, empty{}, onB{};
    const Frame frame = v.beginFrame();
    upload(frame, buffer, markers);
    frame.pick(view, 32.0f, 32.0f, 0.0f, &onA);
    frame.pick(view, 47.0f, 32.0f, 8.0f, &nearA);    // 15 pixels right: 5 beyond the edge
    frame.pick(view, 47.0f, 32.0f, 4.0f, &shortOfA); // not within 4
    frame.pick(view, 65.6f, 96.0f, 0.0f, &overlap);  // inside both C and D
    frame.pick(view, 56.0f, 96.0f, 0.0f, &onC);      // inside C only
    frame.pick(view, 64.0f, 64.0f, 8.0f, &empty);
    frame.pick(view, 96.5f, 31.0f, 2.0f, &onB);
    frame.end();
    v.finish();

    EXPECT_EQ(onA.hit, 1);
    EXPECT_EQ(onA.element, 0u);
    EXPECT_EQ(onA.vertex, 0u);
    EXPECT_EQ(onA.distance, 0.0f);
    EXPECT_FLOAT_EQ(onA.value, 0.1f);
    EXPECT_FLOAT_EQ(onA.position[0], 0.25f);
    EXPECT_FLOAT_EQ(onA.position[1], 0.25f);
    EXPECT_EQ(onA.position[2], 0.0f);

    EXPECT_EQ(nearA.hit, 1);
    EXPECT_EQ(nearA.element, 0u);
    EXPECT_NEAR(nearA.distance, 5.0f, 1e-3f);
    EXPECT_EQ(shortOfA.hit, 0);
    EXPECT_EQ(shortOfA.element, 0u);
    EXPECT_EQ(shortOfA.distance, 0.0f);

    EXPECT_EQ(overlap.hit, 1);
    EXPECT_EQ(overlap.element, 3u) << "D is drawn over C";
    EXPECT_FLOAT_EQ(overlap.value, 0.4f);
    EXPECT_EQ(onC.hit, 1);
    EXPECT_EQ(onC.element, 2u);
    EXPECT_EQ(empty.hit, 0);
    EXPECT_EQ(onB.hit, 1);
    EXPECT_EQ(onB.element, 1u);
    EXPECT_EQ(onB.distance, 0.0f);
}

TEST_P(PickTest, AnArrowIsFoundAlongItsDirectionNotAcrossIt) {
    Viewer& v = open();
    // One arrow 40 pixels long (r = 20) at the picture's centre (64, 64): 8 pixels ahead of the
    // centre lies inside its head (12 pixels wide there); 8 pixels beside the centre lies outside
    // its shaft (4.8 wide), 2 pixels short of the head, which begins 2 pixels ahead, 18 wide.
    Buffer buffer =
        v.buffer({.size = sizeof(Marker), .writer = ESTUARY_WRITER_HOST, .name = "arrow"});
    estuary_markers_view_desc d{.buffer = buffer.get(), .shape = ESTUARY_MARKER_SHAPE_ARROW};
    d.size = 40.0f;
    View view = v.markersView(d);
    for (const auto& [dx, dy] : {std::pair{1.0f, 0.0f}, {0.0f, 1.0f}}) {
        estuary_pick ahead{}, beside{}, besideWithin{};
        const Frame frame = v.beginFrame();
        const Marker arrow{0.5f, 0.5f, 0, 0.5f, dx, dy, 0, 0};
        std::memcpy(frame.hostPointer(buffer), &arrow, sizeof(arrow));
        frame.pick(view, 64.0f + 8.0f * dx, 64.0f + 8.0f * dy, 0.0f, &ahead);
        frame.pick(view, 64.0f + 8.0f * dy, 64.0f + 8.0f * dx, 0.0f, &beside);
        frame.pick(view, 64.0f + 8.0f * dy, 64.0f + 8.0f * dx, 8.0f, &besideWithin);
        frame.end();
        v.finish();
        EXPECT_EQ(ahead.hit, 1) << "direction " << dx << ", " << dy;
        EXPECT_EQ(ahead.distance, 0.0f);
        EXPECT_EQ(beside.hit, 0) << "direction " << dx << ", " << dy;
        EXPECT_EQ(besideWithin.hit, 1);
        EXPECT_NEAR(besideWithin.distance, 2.0f, 0.01f);
    }
}

TEST_P(PickTest, ASegmentGivesItsNearestVertexThroughTheIndicesAndTheValueBetween) {
    Viewer& v = open();
    // Vertices at pixels (32, 64), (96, 64), (32, 96) and (96, 32); segments through indices:
    // 0-1 across the middle, and 2-3 a diagonal up through (64, 64), where both cover the point.
    const std::vector<Vertex> vertices = {{0.25f, 0.5f, 0, 0.0f},
                                          {0.75f, 0.5f, 0, 1.0f},
                                          {0.25f, 0.75f, 0, 0.2f},
                                          {0.75f, 0.25f, 0, 0.6f}};
    const std::vector<uint32_t> indices = {0, 1, 2, 3};
    Buffer vb = hostBuffer(v, vertices, "vertices");
    Buffer ib = hostBuffer(v, indices, "indices");
    estuary_lines_view_desc d{
        .vertices = vb.get(), .indices = ib.get(), .topology = ESTUARY_LINES_SEGMENTS};
    d.width = 4.0f;
    View view = v.linesView(d);
    estuary_pick across{}, offside{}, diagonal{}, crossing{}, pastTheEnd{};
    const Frame frame = v.beginFrame();
    upload(frame, vb, vertices);
    upload(frame, ib, indices);
    frame.pick(view, 48.0f, 65.0f, 0.0f, &across);      // a quarter along 0-1, 1 pixel below
    frame.pick(view, 80.0f, 70.0f, 8.0f, &offside);     // 6 pixels below: 4 beyond the width
    frame.pick(view, 40.0f, 88.0f, 0.0f, &diagonal);    // an eighth along 2-3
    frame.pick(view, 64.0f, 64.0f, 0.0f, &crossing);    // on both: 2-3 is drawn over 0-1
    frame.pick(view, 103.0f, 64.0f, 4.0f, &pastTheEnd); // 7 pixels beyond vertex 1: 5 beyond
    frame.end();
    v.finish();

    EXPECT_EQ(across.hit, 1);
    EXPECT_EQ(across.element, 0u);
    EXPECT_EQ(across.vertex, 0u);
    EXPECT_EQ(across.distance, 0.0f);
    EXPECT_NEAR(across.value, 0.25f, 1e-5f);
    EXPECT_NEAR(across.position[0], 0.375f, 1e-6f);
    EXPECT_NEAR(across.position[1], 0.5f, 1e-6f);

    EXPECT_EQ(offside.hit, 1);
    EXPECT_EQ(offside.vertex, 1u);
    EXPECT_NEAR(offside.distance, 4.0f, 1e-4f);
    EXPECT_NEAR(offside.value, 0.75f, 1e-5f);

    EXPECT_EQ(diagonal.hit, 1);
    EXPECT_EQ(diagonal.element, 1u);
    EXPECT_EQ(diagonal.vertex, 2u) << "the index buffer's, not the segment's end";
    EXPECT_NEAR(diagonal.value, 0.2f + 0.125f * 0.4f, 1e-5f);
    EXPECT_NEAR(diagonal.position[0], 0.3125f, 1e-5f);
    EXPECT_NEAR(diagonal.position[1], 0.6875f, 1e-5f);

    EXPECT_EQ(crossing.element, 1u);
    EXPECT_EQ(pastTheEnd.hit, 0);
}

// Where the orbit camera shows (x, y, z) of a mesh in the box [-0.5, 0.5]^3, on a square picture
// of `side` pixels (volume_camera.h; the default camera looks along +z).
std::array<float, 2> shown(float x, float y, float z, float side) {
    const OrbitCamera c = orbitCamera(0.0f, 0.0f, 1.0f, uint32_t(side), uint32_t(side));
    const float d[3] = {x - c.eye[0], y - c.eye[1], z - c.eye[2]};
    const auto dot = [&](const Vec3& a) { return d[0] * a[0] + d[1] * a[1] + d[2] * a[2]; };
    const float t = dot(c.forward);
    const float rr = c.right[0] * c.right[0] + c.right[1] * c.right[1] + c.right[2] * c.right[2];
    const float uu = c.up[0] * c.up[0] + c.up[1] * c.up[1] + c.up[2] * c.up[2];
    return {(dot(c.right) / rr / t + 1.0f) * 0.5f * side,
            (-dot(c.up) / uu / t + 1.0f) * 0.5f * side};
}

TEST_P(PickTest, AMeshGivesTheTriangleInFrontAndThePointHitOnIt) {
    Viewer& v = open();
    // Triangle 0 in front (z = -0.25) over the centre; triangles 1 and 2, a square behind
    // (z = 0.25) with values rising along x; the front one comes first, so depth decides.
    const std::vector<Vertex> vertices = {{-0.2f, -0.2f, -0.25f, 0.9f}, {0.2f, -0.2f, -0.25f, 0.9f},
                                          {0.0f, 0.2f, -0.25f, 0.9f},   {-0.4f, -0.4f, 0.25f, 0.0f},
                                          {0.4f, -0.4f, 0.25f, 0.8f},   {0.4f, 0.4f, 0.25f, 0.8f},
                                          {-0.4f, 0.4f, 0.25f, 0.0f}};
    const std::vector<uint32_t> indices = {0, 1, 2, 3, 4, 5, 3, 5, 6};
    Buffer vb = hostBuffer(v, vertices, "vertices");
    Buffer ib = hostBuffer(v, indices, "indices");
    v.setCamera({.zoom = 1.0f}); // along +z
    estuary_mesh_view_desc d{.vertices = vb.get(), .indices = ib.get()};
    View view = v.meshView(d);
    const auto centre = shown(0.0f, 0.0f, -0.25f, 128.0f);
    const auto behind = shown(0.3f, 0.1f, 0.25f, 128.0f);
    const auto outside = shown(0.45f, 0.0f, 0.25f, 128.0f);
    estuary_pick front{}, back{}, beyond{}, beyondWithin{};
    const Frame frame = v.beginFrame();
    upload(frame, vb, vertices);
    upload(frame, ib, indices);
    frame.pick(view, centre[0], centre[1], 0.0f, &front);
    frame.pick(view, behind[0], behind[1], 0.0f, &back);
    frame.pick(view, outside[0], outside[1], 0.0f, &beyond);
    frame.pick(view, outside[0], outside[1], 8.0f, &beyondWithin);
    frame.end();
    v.finish();

    EXPECT_EQ(front.hit, 1);
    EXPECT_EQ(front.element, 0u) << "the triangle in front";
    EXPECT_EQ(front.distance, 0.0f);
    EXPECT_NEAR(front.value, 0.9f, 1e-5f);
    EXPECT_NEAR(front.position[0], 0.0f, 1e-4f);
    EXPECT_NEAR(front.position[1], 0.0f, 1e-4f);
    EXPECT_NEAR(front.position[2], -0.25f, 1e-5f);
    EXPECT_EQ(front.vertex, 2u) << "(0, 0) is nearest corner 2 by weight (1/2)";

    EXPECT_EQ(back.hit, 1);
    EXPECT_TRUE(back.element == 1u || back.element == 2u) << back.element;
    EXPECT_NEAR(back.position[0], 0.3f, 1e-3f);
    EXPECT_NEAR(back.position[1], 0.1f, 1e-3f);
    EXPECT_NEAR(back.position[2], 0.25f, 1e-5f);
    EXPECT_NEAR(back.value, 0.7f, 1e-3f) << "interpolated across the square: x + 0.4";
    EXPECT_EQ(back.vertex, 5u);

    EXPECT_EQ(beyond.hit, 0);
    EXPECT_EQ(beyondWithin.hit, 1);
    EXPECT_GT(beyondWithin.distance, 0.0f);
    EXPECT_NEAR(beyondWithin.position[0], 0.4f, 1e-3f) << "the nearest point: on the edge";
}

TEST_P(PickTest, GlyphsGiveTheirCellAndSpeedAndPointsTheirPosition) {
    Viewer& v = open();
    // Glyphs every 8 cells of a 32 x 32 image, at cells (4, 4), (12, 4), ...: 4 pixels a cell,
    // the cell (12, 4) at pixel (50, 18). Only it moves (speed 1: an arrow of r = 8 along +x).
    estuary_image_desc id{
        .format = ESTUARY_FORMAT_RG32_FLOAT, .kind = ESTUARY_IMAGE_2D, .width = 32, .height = 32};
    id.writer = ESTUARY_WRITER_HOST;
    Image image = v.image(id);
    estuary_glyph_view_desc g{.image = image.get(), .shape = ESTUARY_MARKER_SHAPE_ARROW};
    g.spacing = 8;
    g.size = 16.0f;
    View glyphs = v.glyphView(g);
    // Points (x, y, vx, vy) 4 pixels across: their value is the speed.
    const std::vector<std::array<float, 4>> points = {{0.25f, 0.75f, 3.0f, 4.0f},
                                                      {0.75f, 0.75f, 0.0f, 1.0f}};
    Buffer pb = hostBuffer(v, points, "points");
    estuary_points_view_desc p{.buffer = pb.get()};
    p.size = 4.0f;
    View pointsView = v.pointsView(p);
    estuary_pick glyph{}, still{}, point{}, between{};
    const Frame frame = v.beginFrame();
    float* texels = frame.hostLevel<float>(image);
    std::fill(texels, texels + 2 * 32 * 32, 0.0f);
    texels[2 * (4 * 32 + 12)] = 1.0f;
    upload(frame, pb, points);
    frame.pick(glyphs, 55.0f, 18.0f, 0.0f, &glyph);
    frame.pick(glyphs, 18.0f, 18.0f, 4.0f, &still); // cell (4, 4): no velocity, no glyph
    frame.pick(pointsView, 33.0f, 97.0f, 0.0f, &point);
    frame.pick(pointsView, 64.0f, 96.0f, 8.0f, &between);
    frame.end();
    v.finish();

    EXPECT_EQ(glyph.hit, 1);
    EXPECT_EQ(glyph.element, 1u) << "the second glyph of the first row";
    EXPECT_FLOAT_EQ(glyph.value, 1.0f);
    EXPECT_EQ(glyph.position[0], 12.0f);
    EXPECT_EQ(glyph.position[1], 4.0f);
    EXPECT_EQ(still.hit, 0);

    EXPECT_EQ(point.hit, 1);
    EXPECT_EQ(point.element, 0u);
    EXPECT_FLOAT_EQ(point.value, 5.0f);
    EXPECT_FLOAT_EQ(point.position[0], 0.25f);
    EXPECT_EQ(between.hit, 0) << "32 pixels from either";
}

TEST_P(PickTest, HiddenViewsAndEmptyOnesPickNothingAndBadArgumentsAreRefused) {
    Viewer& v = open();
    const std::vector<Marker> markers = {{0.5f, 0.5f, 0, 0.5f, 0, 0, 0, 0}};
    Buffer buffer = hostBuffer(v, markers, "markers");
    estuary_markers_view_desc d{.buffer = buffer.get(), .shape = ESTUARY_MARKER_SHAPE_SQUARE};
    d.size = 30.0f;
    d.label = "squares";
    View view = v.markersView(d);
    estuary_image_desc fd = hostImage(8, 8);
    Image field = v.image(fd);
    estuary_field_view_desc fv{.image = field.get()};
    View fieldView = v.fieldView(fv);

    view.setVisible(false);
    estuary_pick hidden{};
    hidden.hit = 7;
    {
        const Frame frame = v.beginFrame();
        upload(frame, buffer, markers);
        frame.pick(view, 64.0f, 64.0f, 0.0f, &hidden);
        frame.end();
    }
    view.update([](estuary_view_params& p) {
        p.visible = 1;
        p.point_count = 0;
    });
    estuary_pick none{};
    none.hit = 7;
    {
        const Frame frame = v.beginFrame();
        frame.pick(view, 64.0f, 64.0f, 0.0f, &none);
        frame.end();
    }
    v.finish();
    EXPECT_EQ(hidden.hit, 0);
    EXPECT_EQ(none.hit, 0);

    const Frame frame = v.beginFrame();
    estuary_pick result{};
    EXPECT_REFUSED(frame.pick(view, 64.0f, 64.0f, -1.0f, &result), ESTUARY_ERROR_INVALID_ARGUMENT,
                   "estuary_frame_pick", "squares", "radius -1", "0..64");
    EXPECT_REFUSED(frame.pick(view, 64.0f, 64.0f, 65.0f, &result), ESTUARY_ERROR_INVALID_ARGUMENT,
                   "radius 65");
    EXPECT_REFUSED(frame.pick(view, std::numeric_limits<float>::quiet_NaN(), 0.0f, 1.0f, &result),
                   ESTUARY_ERROR_INVALID_ARGUMENT, "must be finite");
    EXPECT_REFUSED(frame.pick(view, 64.0f, 64.0f, 1.0f, nullptr), ESTUARY_ERROR_INVALID_ARGUMENT,
                   "result is NULL");
    EXPECT_REFUSED(frame.pick(fieldView, 4.0f, 4.0f, 1.0f, &result), ESTUARY_ERROR_INVALID_ARGUMENT,
                   "field view has no elements", "estuary_frame_read_image");
    frame.end();
}

INSTANTIATE_TEST_SUITE_P(DrawPaths, PickTest,
                         ::testing::Values(ESTUARY_DRAW_RASTER, ESTUARY_DRAW_COMPUTE),
                         [](const auto& path) {
                             return path.param == ESTUARY_DRAW_COMPUTE ? "Compute" : "Raster";
                         });

} // namespace
} // namespace estuary
