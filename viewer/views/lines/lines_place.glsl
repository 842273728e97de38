// Where a segment lands and its ends' colours, shared by the raster path (lines_vertex.glsl) and
// the compute splat (lines_splat.glsl), so both draw the same picture. Segment i's two ends are
// pulled from the vertices' channels (attributes.glsl; by default vec4 (x, y, z, value) each)
// directly or through the index channel: segments take vertices (2i, 2i + 1), a strip (i, i + 1), where an index of
// ESTUARY_LINE_RESTART on either end drops the segment, as does an index past the vertex buffer's
// end. Ends are placed as points are (points_place.glsl); a segment with an end behind the eye is
// not drawn.
#include "shared_layout.h"

#include "attributes.glsl"
layout(binding = ESTUARY_BINDING_COLORMAP) uniform sampler2D colormaps;

#ifdef ESTUARY_POINTS_3D
layout(push_constant) uniform Push{ESTUARY_MARKER3D_PUSH_CONSTANTS} pc;
#else
layout(push_constant) uniform Push{ESTUARY_MARKER_PUSH_CONSTANTS} pc;
#endif

#include "points_place.glsl"

vec4 endColour(float value, uint flags) {
    if ((flags & ESTUARY_LINE_FLAG_RGBA) != 0u) return unpackUnorm4x8(floatBitsToUint(value));
    return vec4(colormapColour(value), 1.0);
}

bool projectEnd(vec4 v, out vec2 pixel) {
    return placePosition(v.xyz, pixel);
}

// Segment `segment`'s vertices (their indices in the vertex buffer); false when an index is a
// restart or past the vertices.
bool segmentEnds(uint segment, out uint ia, out uint ib) {
    uint first = int(pc.markerShape + 0.5) == ESTUARY_LINE_STRIP ? segment : 2u * segment;
    ia = first;
    ib = first + 1u;
    if ((floatBitsToUint(pc.markerFlagBits) & ESTUARY_LINE_FLAG_INDEXED) == 0u) return true;
    ia = fetchIndex(first);
    ib = fetchIndex(first + 1u);
    // A restart, or an index past the vertices (pointCountBits: how many there are).
    uint vertexCount = floatBitsToUint(pc.pointCountBits);
    return ia < vertexCount && ib < vertexCount;
}

// Segment `segment`'s ends in pixels and their colours; false when it is not drawn.
// Vertex i as (x, y, z, value); 2D: z 0.
vec4 lineVertex(uint i) {
    vec4 v = vec4(fetchVector(ESTUARY_CH_POSITION, i).xyz, fetchScalar(ESTUARY_CH_VALUE, i));
#ifndef ESTUARY_POINTS_3D
    v.z = 0.0;
#endif
    return v;
}

bool placeSegment(uint segment, out vec2 pa, out vec2 pb, out vec4 ca, out vec4 cb) {
    uint flags = floatBitsToUint(pc.markerFlagBits);
    uint ia, ib;
    bool drawn = segmentEnds(segment, ia, ib);
    vec4 a = drawn ? lineVertex(ia) : vec4(0.0);
    vec4 b = drawn ? lineVertex(ib) : vec4(0.0);
    pa = vec2(0.0);
    pb = vec2(0.0);
    drawn = drawn && projectEnd(a, pa) && projectEnd(b, pb);
    ca = endColour(a.w, flags);
    cb = endColour(b.w, flags);
    return drawn;
}
