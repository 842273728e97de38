#version 450
#extension GL_GOOGLE_include_directive : require

// The compute splat's resolve (points_splat.glsl): a full-screen pass, blended ONE + ONE, adds
// each pixel's splatted colour (in 1/255 steps) onto the target; alpha stays as it was.
#include "shared_layout.h"

layout(std430, binding = ESTUARY_BINDING_SPLAT) readonly buffer Splat {
    uint splat[];
};
// The first member of both point blocks (ESTUARY_POINT_PUSH_CONSTANTS, ..._POINT3D_...).
layout(push_constant) uniform Push {
    float targetWidth;
} pc;

layout(location = 0) out vec4 outColor;

void main() {
    uvec2 pixel = uvec2(gl_FragCoord.xy);
    uint at = 3u * (pixel.y * uint(pc.targetWidth) + pixel.x);
    outColor = vec4(vec3(splat[at], splat[at + 1u], splat[at + 2u]) / 255.0, 0.0);
}
