// Picking lines (lines_pick.comp, lines3d_pick.comp; pick.glsl runs the passes): a segment placed
// as it is drawn (lines_place.glsl) covers the point within half its width of it; its vertex is
// the end nearer the point, its value and position those of the segment's point nearest it
// (interpolated as the draw interpolates colour; in 3D perspective-correct; with RGBA the nearer
// end's). A segment both of whose ends have alpha 0 is not drawn. Segments are drawn in buffer
// order, in 3D too (no depth test), so depth stays 0: among those covering the point the last is
// on top.
#include "lines_place.glsl"
#include "pick.glsl"

uint pickCount() {
    return floatBitsToUint(pc.intensity); // the segments (shared_layout.h)
}

bool pickElement(uint segment, vec2 cursor, out PickHit hit) {
    hit = PickHit(0.0, 0.0, 0u, 0.0, vec3(0.0));
    vec2 pa, pb;
    vec4 ca, cb;
    if (!placeSegment(segment, pa, pb, ca, cb) || any(isnan(vec4(pa, pb))) ||
        any(isinf(vec4(pa, pb))) || max(ca.a, cb.a) <= 0.0)
        return false;
    uint ia, ib;
    segmentEnds(segment, ia, ib);
    vec4 a = lineVertex(ia), b = lineVertex(ib);
    vec2 ab = pb - pa;
    float length2 = dot(ab, ab);
    float s = length2 > 0.0 ? clamp(dot(cursor - pa, ab) / length2, 0.0, 1.0) : 0.0;
    hit.distance = max(distance(cursor, pa + s * ab) - 0.5 * pc.lineWidth, 0.0);
    hit.vertex = s <= 0.5 ? ia : ib;
#ifdef ESTUARY_POINTS_3D
    // The screen's s is the segment's s' where 1/t interpolates linearly.
    float ta = viewDistance(a.xyz), tb = viewDistance(b.xyz);
    float w = s / tb, sw = w / ((1.0 - s) / ta + w);
    hit.position = mix(a.xyz, b.xyz, sw);
#else
    float sw = s;
    hit.position = vec3(mix(a.xy, b.xy, sw), 0.0);
#endif
    bool rgba = (floatBitsToUint(pc.markerFlagBits) & ESTUARY_LINE_FLAG_RGBA) != 0u;
    hit.value = rgba ? (s <= 0.5 ? a.w : b.w) : mix(a.w, b.w, sw);
    return true;
}
