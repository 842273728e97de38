// The lines' vertex shader (lines.vert in 2D, lines3d.vert in 3D): segment gl_InstanceIndex, placed
// by lines_place.glsl, becomes a quad along it on the screen, lineWidth wide plus a pixel each side
// for lines.frag's antialiased edge, and half a pixel beyond each end.
#include "lines_place.glsl"

layout(location = 0) out vec4 color;
layout(location = 1) out float across;        // pixels from the line's middle
layout(location = 2) flat out float halfWidth; // pixels

void main() {
    vec2 pa, pb;
    vec4 ca, cb;
    bool drawn = placeSegment(uint(gl_InstanceIndex), pa, pb, ca, cb);
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
    color = corner.x < 0.5 ? ca : cb;
}
