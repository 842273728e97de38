// The renderer's view mapping (viewer/views/field/field.frag) on the host, both ways: target pixels ↔ field
// cells, for painting, the probe under the cursor and zooming about the cursor. Pure functions; the
// window tests check them against the shader by rendering.
//
// Target coordinates are continuous framebuffer pixels: pixel (i, j) covers [i, i+1) × [j, j+1),
// so its centre, gl_FragCoord, is (i + 0.5, j + 0.5); y grows downwards, as in Vulkan. Cell
// coordinates follow sim::Brush: cell (i, j) sits at (i, j) (its texel centre), row 0 at the top.
#pragma once

#include "renderer.h"

#include <algorithm>

namespace estuary {

struct Vec2 {
    float x = 0, y = 0;
};

// Target pixels per field texel: the aspect-preserving fit at zoom 1, times the zoom.
inline float pixelsPerTexel(VkExtent2D target, VkExtent2D field, float zoom) {
    return std::min(float(target.width) / float(field.width),
                    float(target.height) / float(field.height)) *
           zoom;
}

// field.frag's uv: 0..1 over the field, (0.5 + pan) at the target's centre.
inline Vec2 targetToUv(Vec2 p, VkExtent2D target, VkExtent2D field, const ViewParams& view) {
    const float ppt = pixelsPerTexel(target, field, view.zoom);
    return {(p.x - 0.5f * float(target.width)) / (float(field.width) * ppt) + 0.5f + view.panX,
            (p.y - 0.5f * float(target.height)) / (float(field.height) * ppt) + 0.5f + view.panY};
}

inline Vec2 uvToTarget(Vec2 uv, VkExtent2D target, VkExtent2D field, const ViewParams& view) {
    const float ppt = pixelsPerTexel(target, field, view.zoom);
    return {(uv.x - 0.5f - view.panX) * float(field.width) * ppt + 0.5f * float(target.width),
            (uv.y - 0.5f - view.panY) * float(field.height) * ppt + 0.5f * float(target.height)};
}

// Texel i's centre is uv (i + 0.5) / width, so a cell coordinate is uv * size - 0.5.
inline Vec2 targetToCell(Vec2 p, VkExtent2D target, VkExtent2D field, const ViewParams& view) {
    const Vec2 uv = targetToUv(p, target, field, view);
    return {uv.x * float(field.width) - 0.5f, uv.y * float(field.height) - 0.5f};
}

inline Vec2 cellToTarget(Vec2 cell, VkExtent2D target, VkExtent2D field, const ViewParams& view) {
    return uvToTarget({(cell.x + 0.5f) / float(field.width), (cell.y + 0.5f) / float(field.height)},
                      target, field, view);
}

// The cell whose texel contains the point, or false when the point is outside the field (the
// shader draws the background there).
inline bool cellUnder(Vec2 p, VkExtent2D target, VkExtent2D field, const ViewParams& view,
                      int& cellX, int& cellY) {
    const Vec2 uv = targetToUv(p, target, field, view);
    if (uv.x < 0.0f || uv.y < 0.0f || uv.x >= 1.0f || uv.y >= 1.0f) return false;
    cellX = std::min(int(uv.x * float(field.width)), int(field.width) - 1);
    cellY = std::min(int(uv.y * float(field.height)), int(field.height) - 1);
    return true;
}

// New zoom with the pan adjusted so the field point under `anchor` stays under it.
inline ViewParams zoomAbout(const ViewParams& view, float newZoom, Vec2 anchor, VkExtent2D target,
                            VkExtent2D field) {
    const Vec2 uv = targetToUv(anchor, target, field, view);
    ViewParams out = view;
    out.zoom = newZoom;
    out.panX = 0.0f;
    out.panY = 0.0f;
    const Vec2 uvNoPan = targetToUv(anchor, target, field, out);
    out.panX = uv.x - uvNoPan.x;
    out.panY = uv.y - uvNoPan.y;
    return out;
}

// Pan so the field follows a drag of `delta` target pixels.
inline ViewParams panBy(const ViewParams& view, Vec2 delta, VkExtent2D target, VkExtent2D field) {
    const float ppt = pixelsPerTexel(target, field, view.zoom);
    ViewParams out = view;
    out.panX -= delta.x / (float(field.width) * ppt);
    out.panY -= delta.y / (float(field.height) * ppt);
    return out;
}

// ---- volumes ------------------------------------------------------------------------------------

// How the current view shows a 3D field: ray-marched under the orbit camera, or as a slice (which
// then maps to the target like a 2D field of sliceExtent).
enum class VolumeView { None, Orbit, Slice };

// The slice's 2D extent for a w x h x d volume cut normal to `axis` (volume_slice.frag's order:
// z by y for x slices, x by z for y slices, x by y for z slices).
inline VkExtent2D sliceExtent(uint32_t axis, uint32_t w, uint32_t h, uint32_t d) {
    return axis == 0 ? VkExtent2D{d, h} : axis == 1 ? VkExtent2D{w, d} : VkExtent2D{w, h};
}

// A drag of `delta` target pixels turns the orbit camera: a full target width turns it by 180°
// about the vertical, a full target height tilts it by 90°, the tilt stopping short of the poles.
inline ViewParams orbitBy(const ViewParams& view, Vec2 delta, VkExtent2D target) {
    constexpr float kPi = 3.14159265f;
    ViewParams out = view;
    out.yaw -= delta.x / float(std::max(target.width, 1u)) * kPi;
    out.pitch = std::clamp(out.pitch + delta.y / float(std::max(target.height, 1u)) * 0.5f * kPi,
                           -1.48f, 1.48f);
    return out;
}

// The camera where a volume first appears: default angles, zoom 1, no pan.
inline ViewParams resetCamera(const ViewParams& view) {
    ViewParams out = view;
    out.yaw = ViewParams::kDefaultYaw;
    out.pitch = ViewParams::kDefaultPitch;
    out.zoom = 1.0f;
    out.panX = out.panY = 0.0f;
    return out;
}

} // namespace estuary
