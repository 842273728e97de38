// A marker's shape as a signed distance in pixels (negative inside) in its own frame (+x along its
// direction), and the share of a pixel it covers: 0.5 - distance clamped to 0..1, a one-pixel
// antialiased edge; outlined, the shape's boundary lineWidth wide instead. Shared by the raster
// path (markers.frag) and the compute splat (markers_splat.glsl).
#include "shared_layout.h"

// A box of half sides b centred at c.
float box(vec2 p, vec2 c, vec2 b) {
    vec2 d = abs(p - c) - b;
    return length(max(d, 0.0)) + min(max(d.x, d.y), 0.0);
}

// The convex polygon bounded by lines through points q[i] with outward unit normals n[i], as the
// largest of their signed distances (exact inside and along edges, what the one-pixel edge needs).
float halfPlane(vec2 p, vec2 q, vec2 n) {
    return dot(p - q, n);
}

float shapeDistance(int shape, vec2 p, float r) {
    if (shape == ESTUARY_MARKER_DISC) return length(p) - r;
    if (shape == ESTUARY_MARKER_SQUARE) return box(p, vec2(0.0), vec2(r));
    if (shape == ESTUARY_MARKER_DIAMOND) return (abs(p.x) + abs(p.y) - r) * 0.70710678;
    if (shape == ESTUARY_MARKER_CROSS)
        return min(box(p, vec2(0.0), vec2(r, 0.2 * r)), box(p, vec2(0.0), vec2(0.2 * r, r)));
    if (shape == ESTUARY_MARKER_RING) return abs(length(p) - 0.8 * r) - 0.2 * r;
    if (shape == ESTUARY_MARKER_TRIANGLE) {
        // Equilateral, its tip at (r, 0): the edges' outward normals at 180 and +-60 degrees, the
        // inradius r / 2.
        float back = halfPlane(p, vec2(-0.5 * r, 0.0), vec2(-1.0, 0.0));
        float upper = halfPlane(p, vec2(0.25 * r, 0.4330127 * r), vec2(0.5, 0.8660254));
        float lower = halfPlane(p, vec2(0.25 * r, -0.4330127 * r), vec2(0.5, -0.8660254));
        return max(back, max(upper, lower));
    }
    // ESTUARY_MARKER_ARROW: a shaft from the tail (-r, 0) to the head's back at 0.1 r, half as
    // wide as 0.24 r, and a head from there to the tip (r, 0), 0.9 r wide.
    float shaft = box(p, vec2(-0.45 * r, 0.0), vec2(0.55 * r, 0.12 * r));
    vec2 edge = normalize(vec2(0.45, 0.9)); // outward normal of the head's upper edge
    float head = max(halfPlane(p, vec2(0.1 * r, 0.0), vec2(-1.0, 0.0)),
                     max(halfPlane(p, vec2(r, 0.0), edge),
                         halfPlane(p, vec2(r, 0.0), vec2(edge.x, -edge.y))));
    return min(shaft, head);
}

float markerCoverage(int shape, uint flags, vec2 local, float halfSize, float lineWidth) {
    float d = shapeDistance(shape, local, halfSize);
    if ((flags & ESTUARY_MARKER_FLAG_OUTLINE) != 0u) d = abs(d) - 0.5 * lineWidth;
    return clamp(0.5 - d, 0.0, 1.0);
}
