// The lines' vertex shader (lines.vert in 2D, lines3d.vert in 3D): segment gl_InstanceIndex, its
// two ends pulled from the slot's vertex buffer (vec4 (x, y, z, value) each) directly or through
// the index buffer, becomes a quad along it on the screen, lineWidth wide plus a pixel each side
// for lines.frag's antialiased edge, and half a pixel beyond each end. Segments: vertices (2i,
// 2i + 1); a strip: (i, i + 1), where an index of ESTUARY_LINE_RESTART on either end drops the
// segment, as does an index past the vertex buffer's end. Ends are placed as points are (points_place.glsl); a segment with an end behind the eye
// is not drawn.
#include "shared_layout.h"

layout(std430, binding = ESTUARY_BINDING_POINTS) readonly buffer Vertices {
    vec4 vertices[];
};
layout(std430, binding = ESTUARY_BINDING_INDICES) readonly buffer Indices {
    uint indices[];
};
layout(binding = ESTUARY_BINDING_COLORMAP) uniform sampler2D colormaps;

#ifdef ESTUARY_POINTS_3D
layout(push_constant) uniform Push { ESTUARY_MARKER3D_PUSH_CONSTANTS } pc;
#else
layout(push_constant) uniform Push { ESTUARY_MARKER_PUSH_CONSTANTS } pc;
#endif

#include "points_place.glsl"

layout(location = 0) out vec4 color;
layout(location = 1) out float across;        // pixels from the line's middle
layout(location = 2) flat out float halfWidth; // pixels

vec4 endColour(float value, uint flags) {
    if ((flags & ESTUARY_LINE_FLAG_RGBA) != 0u) return unpackUnorm4x8(floatBitsToUint(value));
    return vec4(colormapColour(value), 1.0);
}

bool project(vec4 v, out vec2 pixel) {
    float unused;
#ifdef ESTUARY_POINTS_3D
    return placePoint(vec4(v.xyz, 0.0), pixel, unused);
#else
    return placePoint(vec4(v.xy, 0.0, 0.0), pixel, unused);
#endif
}

void main() {
    uint flags = floatBitsToUint(pc.markerFlagBits);
    uint segment = uint(gl_InstanceIndex);
    uint first = int(pc.markerShape + 0.5) == ESTUARY_LINE_STRIP ? segment : 2u * segment;
    uint ia = first, ib = first + 1u;
    bool drawn = true;
    if ((flags & ESTUARY_LINE_FLAG_INDEXED) != 0u) {
        ia = indices[first];
        ib = indices[first + 1u];
        // A restart, or an index past the vertices (pointCountBits: how many there are).
        uint vertexCount = floatBitsToUint(pc.pointCountBits);
        drawn = ia < vertexCount && ib < vertexCount;
    }
    vec4 a = drawn ? vertices[ia] : vec4(0.0);
    vec4 b = drawn ? vertices[ib] : vec4(0.0);
    vec2 pa, pb;
    drawn = drawn && project(a, pa) && project(b, pb);
    vec2 along = drawn && distance(pa, pb) > 0.0 ? normalize(pb - pa) : vec2(1.0, 0.0);
    vec2 normal = vec2(-along.y, along.x);
    halfWidth = 0.5 * pc.lineWidth;
    float reach = halfWidth + 1.0;
    // Corners: (end, side) = (0, -1), (1, -1), (0, 1), (1, -1), (1, 1), (0, 1).
    const vec2 corners[6] = vec2[](vec2(0, -1), vec2(1, -1), vec2(0, 1), vec2(1, -1), vec2(1, 1),
                                   vec2(0, 1));
    vec2 corner = corners[gl_VertexIndex];
    vec2 end = corner.x < 0.5 ? pa - 0.5 * along : pb + 0.5 * along;
    across = corner.y * reach;
    vec2 pixel = end + normal * across;
    gl_Position = drawn ? vec4(pixel / vec2(pc.targetWidth, pc.targetHeight) * 2.0 - 1.0, 0.5, 1.0)
                        : vec4(2.0, 2.0, 2.0, 1.0); // outside the clip volume: not drawn
    color = corner.x < 0.5 ? endColour(a.w, flags) : endColour(b.w, flags);
}
