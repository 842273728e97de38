// The markers' vertex shader (markers.vert in 2D, markers3d.vert in 3D, glyphs.vert): marker
// gl_InstanceIndex placed by markers_place.glsl becomes a quad around its centre, turned along its
// axis, reaching a pixel beyond the shape so that markers.frag can antialias its edge.
#include "markers_place.glsl"

layout(location = 0) out vec4 color;
layout(location = 1) out vec2 local;           // pixels from the centre, +x along the direction
layout(location = 2) flat out float halfSize; // pixels
layout(location = 3) flat out uint shape;
layout(location = 4) flat out uint flags;
layout(location = 5) flat out float lineWidth;

void main() {
    PlacedMarker m = placeMarker(uint(gl_InstanceIndex));
    flags = floatBitsToUint(pc.markerFlagBits);
    shape = uint(pc.markerShape + 0.5);
    lineWidth = pc.lineWidth;
    halfSize = m.halfSize;
    // Corners (-1, -1), (1, -1), (-1, 1), (1, -1), (1, 1), (-1, 1): two triangles.
    const vec2 corners[6] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(-1, 1), vec2(1, -1), vec2(1, 1),
                                   vec2(-1, 1));
    local = corners[gl_VertexIndex] * m.reach;
    vec2 pixel = m.centre + local.x * m.axis + local.y * vec2(-m.axis.y, m.axis.x);
    gl_Position = m.drawn
                      ? vec4(pixel / vec2(pc.targetWidth, pc.targetHeight) * 2.0 - 1.0, 0.5, 1.0)
                      : vec4(2.0, 2.0, 2.0, 1.0); // outside the clip volume: not drawn
    color = m.colour;
}
