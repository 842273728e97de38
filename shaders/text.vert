#version 460
// The annotation quads (renderer/text.h): instance i draws quads[i], a parallelogram from its
// origin along two axes in the picture's pixels, with what text.frag needs to fill it.
#include "shared_layout.h"

#include "text_quad.glsl"

layout(push_constant) uniform Push {
    ESTUARY_TEXT_PUSH_CONSTANTS
} pc;

layout(location = 0) out vec2 local;
layout(location = 1) flat out vec4 colour;
layout(location = 2) flat out vec4 params;

const vec2 kCorners[6] = vec2[](vec2(0, 0), vec2(1, 0), vec2(0, 1), vec2(0, 1), vec2(1, 0),
                                vec2(1, 1));

void main() {
    TextQuad q = quads[gl_InstanceIndex];
    vec2 st = kCorners[gl_VertexIndex];
    vec2 pixel = q.origin + st.x * q.axisU + st.y * q.axisV;
    gl_Position = vec4(pixel / vec2(pc.targetWidth, pc.targetHeight) * 2.0 - 1.0, 0.0, 1.0);
    local = mix(q.local.xy, q.local.zw, st);
    colour = q.colour;
    params = q.params;
}
