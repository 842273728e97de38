#include "box_axes.h"

#include "ticks.h"
#include "volume_camera.h"

#include <glm/geometric.hpp>
#include <glm/mat3x3.hpp>
#include <glm/matrix.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include <algorithm>
#include <cmath>

namespace estuary::annotations {
namespace {

using Vec = std::array<double, 3>;

Vec corner(const BoxAxesDesc& box, int axis, double t, int bOn, int cOn) {
    const int b = (axis + 1) % 3, c = (axis + 2) % 3;
    Vec p{};
    p[size_t(axis)] = box.min[size_t(axis)] + t * (box.max[size_t(axis)] - box.min[size_t(axis)]);
    p[size_t(b)] = bOn ? box.max[size_t(b)] : box.min[size_t(b)];
    p[size_t(c)] = cOn ? box.max[size_t(c)] : box.min[size_t(c)];
    return p;
}

// Where a face looks from: the eye (the point the camera's x, y and w rows all send to 0), or for
// a camera without one (orthographic) the direction it looks along.
struct Viewpoint {
    bool perspective = true;
    glm::dvec3 eye{0.0}, forward{0.0, 0.0, 1.0};
};

Viewpoint viewpointOf(const glm::mat4& vp) {
    glm::dmat3 rows;
    glm::dvec3 offsets;
    const int which[] = {0, 1, 3};
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c)
            rows[c][r] = double(vp[c][which[r]]);
        offsets[r] = double(vp[3][which[r]]);
    }
    Viewpoint v;
    v.forward = glm::dvec3(vp[0][3], vp[1][3], vp[2][3]);
    if (std::abs(glm::determinant(rows)) < 1e-12) {
        v.perspective = false;
        return v;
    }
    v.eye = -(glm::inverse(rows) * offsets);
    return v;
}

// Whether the face of `axis` at its maximum (`high`) or minimum faces the viewer.
bool faceFront(const BoxAxesDesc& box, const Viewpoint& v, int axis, bool high) {
    const size_t a = size_t(axis);
    if (v.perspective) return high ? v.eye[int(a)] > box.max[a] : v.eye[int(a)] < box.min[a];
    return high ? v.forward[int(a)] < 0 : v.forward[int(a)] > 0;
}

float lineHeight(const TextMeasure& m, float size) {
    return m.ascent(size) + m.descent(size);
}

AnnotationText label(std::string s, float x, float y, float size, const Rgba& color) {
    AnnotationText t;
    t.text = std::move(s);
    t.x = x;
    t.y = y;
    t.sizePixels = size;
    t.color = color;
    t.alignX = AlignX::Centre;
    t.alignY = AlignY::Middle;
    return t;
}

void drawGizmo(const BoxAxesDesc& box, const TextMeasure& m, const AnnotationStyle& s, Rect vp,
               AnnotationBatch& batch, const std::function<bool(const AnnotationText&)>& place) {
    static const Rgba kColours[3] = {
        {0.95f, 0.3f, 0.3f, 1.0f}, {0.35f, 0.85f, 0.35f, 1.0f}, {0.4f, 0.55f, 1.0f, 1.0f}};
    static const char* const kNames[3] = {"x", "y", "z"};
    const float labelH = lineHeight(m, s.labelSize);
    const float radius = std::clamp(0.08f * std::min(vp.width(), vp.height()), 16.0f, 40.0f);
    const float cx = vp.x0 + radius + labelH + 2 * s.padding,
                cy = vp.y1 - radius - labelH - 2 * s.padding;
    Vec centre{};
    double largest = 0;
    for (size_t i = 0; i < 3; ++i) {
        centre[i] = 0.5 * (box.min[i] + box.max[i]);
        largest = std::max(largest, std::abs(box.max[i] - box.min[i]));
    }
    const ScreenPoint c = project(box.viewProjection, centre, vp);
    if (!c.visible || largest == 0) return;
    // Each axis's screen direction at the box's centre, a step of equal length along each; the
    // sum of their squared lengths is twice a unit's (a rotation's first two rows), which
    // normalizes them so an axis in the screen's plane has the full radius.
    std::array<glm::vec2, 3> d{};
    float sum = 0;
    for (size_t i = 0; i < 3; ++i) {
        Vec p = centre;
        p[i] += 1e-3 * largest;
        const ScreenPoint q = project(box.viewProjection, p, vp);
        if (!q.visible) return;
        d[i] = glm::vec2(q.x - c.x, q.y - c.y);
        sum += glm::dot(d[i], d[i]);
    }
    const float norm = std::sqrt(0.5f * sum);
    if (!(norm > 0)) return;
    for (size_t i = 0; i < 3; ++i) {
        const glm::vec2 e = d[i] / norm * radius;
        batch.lines.push_back(AnnotationLine{cx, cy, cx + e.x, cy + e.y, 2.0f, kColours[i]});
        const float len = glm::length(e);
        const glm::vec2 dir = len > 1e-3f ? e / len : glm::vec2(0.0f);
        place(label(kNames[i], cx + e.x + dir.x * 0.6f * labelH, cy + e.y + dir.y * 0.6f * labelH,
                    s.labelSize, kColours[i]));
    }
}

} // namespace

ScreenPoint project(const glm::mat4& vp, const std::array<double, 3>& p, Rect viewport) {
    const glm::vec4 clip = vp * glm::vec4(float(p[0]), float(p[1]), float(p[2]), 1.0f);
    ScreenPoint s;
    if (!(clip.w > 1e-6f)) return s;
    s.x = viewport.x0 + (clip.x / clip.w + 1.0f) * 0.5f * viewport.width();
    s.y = viewport.y0 + (clip.y / clip.w + 1.0f) * 0.5f * viewport.height();
    s.visible = std::isfinite(s.x) && std::isfinite(s.y);
    return s;
}

glm::mat4 orbitViewProjection(const OrbitCamera& camera, const std::array<double, 3>& min,
                              const std::array<double, 3>& max,
                              const std::array<float, 3>& renderedHalf) {
    // User units to the renderer's box, centred at the origin.
    glm::mat4 toBox(1.0f);
    for (int i = 0; i < 3; ++i) {
        const double side = max[size_t(i)] - min[size_t(i)];
        const float scale = side != 0 ? float(2.0 * double(renderedHalf[size_t(i)]) / side) : 0.0f;
        toBox[i][i] = scale;
        toBox[3][i] = -float(0.5 * (min[size_t(i)] + max[size_t(i)])) * scale;
    }
    // The renderer's ray through NDC (x, y) is eye + t (forward + x right - y up)
    // (volume_march.glsl), so a point's NDC is its offset along right and against up, over t.
    const glm::vec3 eye(camera.eye[0], camera.eye[1], camera.eye[2]);
    const glm::vec3 right(camera.right[0], camera.right[1], camera.right[2]);
    const glm::vec3 up(camera.up[0], camera.up[1], camera.up[2]);
    const glm::vec3 forward(camera.forward[0], camera.forward[1], camera.forward[2]);
    const glm::vec3 rows[4] = {right / glm::dot(right, right), -up / glm::dot(up, up),
                               glm::vec3(0.0f), forward};
    glm::mat4 view(0.0f);
    for (int r = 0; r < 4; ++r) {
        for (int c = 0; c < 3; ++c)
            view[c][r] = rows[r][c];
        view[3][r] = -glm::dot(rows[r], eye);
    }
    return view * toBox;
}

std::array<int, 3> chooseBoxEdges(const BoxAxesDesc& box, Rect viewport) {
    std::array<int, 3> chosen{-1, -1, -1};
    const Viewpoint v = viewpointOf(box.viewProjection);
    for (int a = 0; a < 3; ++a) {
        const int b = (a + 1) % 3, c = (a + 2) % 3;
        int best = -1;
        float bestScore = -1e30f;
        bool bestSilhouette = false;
        // One rule for all four edges of an axis: lowest for an axis that runs across the
        // screen, leftmost for one that runs up it (judged along the box's middle).
        const ScreenPoint m0 = project(box.viewProjection, corner(box, a, 0, 0, 0), viewport);
        const ScreenPoint m1 = project(box.viewProjection, corner(box, a, 1, 0, 0), viewport);
        const ScreenPoint n0 = project(box.viewProjection, corner(box, a, 0, 1, 1), viewport);
        const ScreenPoint n1 = project(box.viewProjection, corner(box, a, 1, 1, 1), viewport);
        const bool horizontal =
            std::abs(m1.x - m0.x + n1.x - n0.x) >= std::abs(m1.y - m0.y + n1.y - n0.y);
        for (int e = 0; e < 4; ++e) {
            const int bOn = e & 1, cOn = (e >> 1) & 1;
            const ScreenPoint p0 =
                project(box.viewProjection, corner(box, a, 0, bOn, cOn), viewport);
            const ScreenPoint p1 =
                project(box.viewProjection, corner(box, a, 1, bOn, cOn), viewport);
            if (!p0.visible || !p1.visible) return {-1, -1, -1};
            // On the outline: one of the two faces meeting at the edge faces the viewer.
            const bool silhouette = faceFront(box, v, b, bOn) != faceFront(box, v, c, cOn);
            const float score = horizontal ? 0.5f * (p0.y + p1.y) : -0.5f * (p0.x + p1.x);
            if ((silhouette && !bestSilhouette) ||
                (silhouette == bestSilhouette && score > bestScore + 1e-3f)) {
                best = e;
                bestScore = score;
                bestSilhouette = silhouette;
            }
        }
        chosen[size_t(a)] = best;
    }
    return chosen;
}

void layoutBoxAxes(const BoxAxesDesc& box, const TextMeasure& m, const AnnotationStyle& s, Rect vp,
                   AnnotationBatch& batch,
                   const std::function<bool(const AnnotationText&)>& place) {
    const std::array<int, 3> edges = chooseBoxEdges(box, vp);
    if (edges[0] < 0) return;
    // The whole box faintly, then the three chosen edges.
    for (int a = 0; a < 3; ++a)
        for (int e = 0; e < 4; ++e) {
            const ScreenPoint p0 =
                project(box.viewProjection, corner(box, a, 0, e & 1, e >> 1), vp);
            const ScreenPoint p1 =
                project(box.viewProjection, corner(box, a, 1, e & 1, e >> 1), vp);
            batch.lines.push_back(AnnotationLine{p0.x, p0.y, p1.x, p1.y, 1.0f, s.grid});
        }
    Vec centre{};
    for (size_t i = 0; i < 3; ++i)
        centre[i] = 0.5 * (box.min[i] + box.max[i]);
    const ScreenPoint mid = project(box.viewProjection, centre, vp);
    const float labelH = lineHeight(m, s.labelSize);
    for (int a = 0; a < 3; ++a) {
        const int e = edges[size_t(a)];
        const Vec from = corner(box, a, 0, e & 1, e >> 1), to = corner(box, a, 1, e & 1, e >> 1);
        const ScreenPoint p0 = project(box.viewProjection, from, vp);
        const ScreenPoint p1 = project(box.viewProjection, to, vp);
        batch.lines.push_back(AnnotationLine{p0.x, p0.y, p1.x, p1.y, 1.0f, s.line});
        const glm::vec2 along(p1.x - p0.x, p1.y - p0.y);
        const float length = glm::length(along);
        if (length < 2 * labelH) continue; // seen end-on: nothing readable fits
        const glm::vec2 dir = along / length;
        // Ticks point away from the box's centre, across the edge.
        glm::vec2 out(-dir.y, dir.x);
        const glm::vec2 toEdge(0.5f * (p0.x + p1.x) - mid.x, 0.5f * (p0.y + p1.y) - mid.y);
        if (glm::dot(out, toEdge) < 0) out = -out;
        const auto across = [&](const std::string& t, float size) {
            return std::abs(out.x) * m.width(t, size) + std::abs(out.y) * lineHeight(m, size);
        };
        TickRequest r;
        r.first = box.min[size_t(a)];
        r.last = box.max[size_t(a)];
        r.lengthPixels = length;
        r.labelExtent = [&](const std::string& t) {
            return std::abs(dir.x) * m.width(t, s.labelSize) + std::abs(dir.y) * labelH;
        };
        const Ticks ticks = computeTicks(r);
        float deepest = 0;
        for (size_t i = 0; i < ticks.major.size(); ++i) {
            Vec p = from;
            p[size_t(a)] = ticks.major[i];
            const ScreenPoint q = project(box.viewProjection, p, vp);
            if (!q.visible) continue;
            batch.lines.push_back(AnnotationLine{q.x, q.y, q.x + out.x * s.tickLength,
                                                 q.y + out.y * s.tickLength, 1.0f, s.line});
            const float reach =
                s.tickLength + s.padding + 0.5f * across(ticks.labels[i], s.labelSize);
            deepest = std::max(deepest, reach + 0.5f * across(ticks.labels[i], s.labelSize));
            place(label(ticks.labels[i], q.x + out.x * reach, q.y + out.y * reach, s.labelSize,
                        s.text));
        }
        std::string title = box.titles[size_t(a)];
        if (!ticks.exponent.empty()) title += title.empty() ? ticks.exponent : " " + ticks.exponent;
        const float reach = deepest + s.padding + 0.5f * across(title, s.axisTitleSize);
        place(label(title, 0.5f * (p0.x + p1.x) + out.x * reach,
                    0.5f * (p0.y + p1.y) + out.y * reach, s.axisTitleSize, s.text));
    }
    if (box.gizmo) drawGizmo(box, m, s, vp, batch, place);
}

} // namespace estuary::annotations
