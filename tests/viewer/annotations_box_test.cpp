// 3D box axes and the gizmo (viewer/annotations/box_axes.h) under the renderer's orbit camera:
// the projection matches the volume's rays, each axis's ticks go on an outer edge, and the gizmo
// turns with the camera.
#include "box_axes.h"
#include "volume_camera.h"

#include <gtest/gtest.h>

#include <cmath>

namespace estuary::annotations {
namespace {

using FixedWidth = FixedWidthMeasure;

constexpr Rect kViewport{0, 0, 800, 600};

// A 2 x 1 x 1 box of user units [0, 200] x [0, 100] x [-50, 50] (mm), drawn as the renderer draws
// a 200 x 100 x 100 volume: half-sides 0.5, 0.25, 0.25.
BoxAxesDesc boxUnder(float yaw, float pitch, float zoom = 1.0f) {
    BoxAxesDesc box;
    box.min = {0, 0, -50};
    box.max = {200, 100, 50};
    box.titles = {"x [mm]", "y [mm]", "z [mm]"};
    const OrbitCamera camera = orbitCamera(yaw, pitch, zoom, 800, 600);
    box.viewProjection = orbitViewProjection(camera, box.min, box.max, {0.5f, 0.25f, 0.25f});
    return box;
}

TEST(AnnotationBoxAxes, TheProjectionFollowsTheVolumeRays) {
    // Yaw 0, pitch 0 looks along +z with x to the right and row 0 (y minimum) at the top.
    const BoxAxesDesc box = boxUnder(0, 0);
    const ScreenPoint centre = project(box.viewProjection, {100, 50, 0}, kViewport);
    ASSERT_TRUE(centre.visible);
    EXPECT_NEAR(centre.x, 400, 1e-3);
    EXPECT_NEAR(centre.y, 300, 1e-3);
    const ScreenPoint right = project(box.viewProjection, {200, 50, 0}, kViewport);
    const ScreenPoint top = project(box.viewProjection, {100, 0, 0}, kViewport);
    EXPECT_GT(right.x, 450);
    EXPECT_NEAR(right.y, 300, 1e-3);
    EXPECT_LT(top.y, 250);
    // The near face (z minimum) looks larger than the far one.
    const ScreenPoint nearCorner = project(box.viewProjection, {200, 50, -50}, kViewport);
    const ScreenPoint farCorner = project(box.viewProjection, {200, 50, 50}, kViewport);
    EXPECT_GT(nearCorner.x, farCorner.x);
    // Against the renderer's own ray: the pixel's ray passes through the point.
    const OrbitCamera camera = orbitCamera(0, 0, 1, 800, 600);
    const float ndcX = right.x / 400.0f - 1.0f, ndcY = right.y / 300.0f - 1.0f;
    const float t =
        (0.5f - camera.eye[0]) / (camera.forward[0] + ndcX * camera.right[0] - ndcY * camera.up[0]);
    EXPECT_NEAR(camera.eye[2] +
                    t * (camera.forward[2] + ndcX * camera.right[2] - ndcY * camera.up[2]),
                0.0f, 1e-4);
}

TEST(AnnotationBoxAxes, SeenFromTheFrontXTicksGoOnTheLowerNearEdgeAndYOnTheLeft) {
    const BoxAxesDesc box = boxUnder(0, 0);
    const std::array<int, 3> edges = chooseBoxEdges(box, kViewport);
    EXPECT_EQ(edges[0], 1); // x: at y maximum (the bottom of the picture), z minimum (near)
    EXPECT_EQ(edges[1], 0); // y: at z minimum (near), x minimum (left)
}

TEST(AnnotationBoxAxes, FromAboveAtTheDefaultAnglesEachAxisTakesAnOutlineEdge) {
    // Default angles: yaw 35°, pitch 25°, looking down from above (-y is up): the top face (y
    // minimum) and the near faces face the viewer.
    const BoxAxesDesc box = boxUnder(0.61086524f, 0.43633231f);
    const std::array<int, 3> edges = chooseBoxEdges(box, kViewport);
    // x along the bottom front (y maximum, z minimum), y up the left back (z maximum, x minimum),
    // z along the bottom left (x minimum, y maximum): outline edges, the lowest or leftmost.
    EXPECT_EQ(edges, (std::array<int, 3>{1, 1, 2}));
    FixedWidth measure;
    AnnotationStyle style;
    AnnotationBatch batch;
    std::vector<Rect> boxes;
    std::vector<AnnotationText> texts;
    layoutBoxAxes(box, measure, style, kViewport, batch, [&](const AnnotationText& t) {
        const Rect r = textBox(t, measure);
        if (!kViewport.contains(r)) return false;
        for (const Rect& b : boxes)
            if (b.overlaps(r)) return false;
        boxes.push_back(r);
        texts.push_back(t);
        return true;
    });
    size_t titles = 0, numbers = 0;
    for (const AnnotationText& t : texts) {
        if (t.text.find("[mm]") != std::string::npos)
            ++titles;
        else if (t.text.size() > 1)
            ++numbers;
    }
    EXPECT_EQ(titles, 3u);
    EXPECT_GE(numbers, 6u);
    // Every label lies outside the projected box: farther from its centre than the box reaches
    // along that direction is hard to state, so: no label's anchor is inside the box's hull of
    // corner points' bounding rectangle shrunk by a fifth.
    float x0 = 1e9f, x1 = -1e9f, y0 = 1e9f, y1 = -1e9f;
    for (int c = 0; c < 8; ++c) {
        const ScreenPoint p =
            project(box.viewProjection,
                    {c & 1 ? 200.0 : 0.0, c & 2 ? 100.0 : 0.0, c & 4 ? 50.0 : -50.0}, kViewport);
        x0 = std::min(x0, p.x), x1 = std::max(x1, p.x), y0 = std::min(y0, p.y),
        y1 = std::max(y1, p.y);
    }
    const Rect inner{x0 + 0.2f * (x1 - x0), y0 + 0.2f * (y1 - y0), x1 - 0.2f * (x1 - x0),
                     y1 - 0.2f * (y1 - y0)};
    for (const AnnotationText& t : texts) {
        if (t.text == "x" || t.text == "y" || t.text == "z") continue;
        EXPECT_FALSE(inner.contains(Rect{t.x, t.y, t.x, t.y}, 0)) << t.text;
    }
}

TEST(AnnotationBoxAxes, TheGizmoTurnsWithTheCamera) {
    FixedWidth measure;
    AnnotationStyle style;
    const auto gizmo = [&](float yaw, float pitch) {
        AnnotationBatch batch;
        layoutBoxAxes(boxUnder(yaw, pitch), measure, style, kViewport, batch,
                      [](const AnnotationText&) { return true; });
        std::vector<AnnotationLine> lines(batch.lines.end() - 3, batch.lines.end());
        return lines;
    };
    // From the front: x points right, y down (rows), z straight at the viewer (no length).
    std::vector<AnnotationLine> g = gizmo(0, 0);
    EXPECT_GT(g[0].x1 - g[0].x0, 15.0f);
    EXPECT_NEAR(g[0].y1 - g[0].y0, 0.0f, 1e-3);
    EXPECT_GT(g[1].y1 - g[1].y0, 15.0f);
    EXPECT_NEAR(std::hypot(g[2].x1 - g[2].x0, g[2].y1 - g[2].y0), 0.0f, 0.5f);
    EXPECT_GT(g[0].color[0], 0.9f); // x red, y green, z blue
    EXPECT_GT(g[1].color[1], 0.8f);
    EXPECT_GT(g[2].color[2], 0.9f);
    // A quarter turn of yaw: z now runs across the screen and x points at (or away from) the
    // viewer.
    g = gizmo(1.5707963f, 0);
    EXPECT_NEAR(std::hypot(g[0].x1 - g[0].x0, g[0].y1 - g[0].y0), 0.0f, 0.5f);
    EXPECT_GT(std::abs(g[2].x1 - g[2].x0), 15.0f);
    // Gizmo lines follow the box's projected axes.
    const BoxAxesDesc box = boxUnder(0.61086524f, 0.43633231f);
    g = gizmo(0.61086524f, 0.43633231f);
    const ScreenPoint c = project(box.viewProjection, {100, 50, 0}, kViewport);
    const ScreenPoint px = project(box.viewProjection, {100.1, 50, 0}, kViewport);
    const float ax = px.x - c.x, ay = px.y - c.y, gx = g[0].x1 - g[0].x0, gy = g[0].y1 - g[0].y0;
    EXPECT_GT((ax * gx + ay * gy) / (std::hypot(ax, ay) * std::hypot(gx, gy)), 0.999f);
}

TEST(AnnotationBoxAxes, ABoxBehindTheEyeGetsNoAxes) {
    BoxAxesDesc box = boxUnder(0, 0, 50.0f); // the eye inside the box
    EXPECT_EQ(chooseBoxEdges(box, kViewport)[0], -1);
    AnnotationBatch batch;
    layoutBoxAxes(box, FixedWidth(), AnnotationStyle(), kViewport, batch,
                  [](const AnnotationText&) { return true; });
    EXPECT_TRUE(batch.empty());
}

} // namespace
} // namespace estuary::annotations
