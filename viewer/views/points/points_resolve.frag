#version 450
#extension GL_GOOGLE_include_directive : require

// The compute splat's resolve (points_splat.glsl): a full-screen pass, blended ONE + ONE, adds
// each pixel's splatted colour (in 1/255 steps) onto the target; alpha stays as it was. For targets
// without storage use; points_resolve.comp does the same for those with it. Specialization
// constant 0: the buffer's layout (points_splat_sum.glsl). It leaves the sums where they are: the
// renderer clears the buffer before the next splat.
#include "shared_layout.h"

layout(std430, binding = ESTUARY_BINDING_SPLAT) readonly buffer Splat {
    uint splat[];
};
// The first member of both point blocks (ESTUARY_POINT_PUSH_CONSTANTS, ..._POINT3D_...).
layout(push_constant) uniform Push {
    float targetWidth;
} pc;

layout(constant_id = 0) const uint kFormat = 0u;

layout(location = 0) out vec4 outColor;

#include "points_splat_sum.glsl"

void main() {
    uvec2 pixel = uvec2(gl_FragCoord.xy);
    outColor = vec4(vec3(splatSum(pixel.y * uint(pc.targetWidth) + pixel.x)) / 255.0, 0.0);
}
