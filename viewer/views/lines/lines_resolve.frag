#version 450
#extension GL_GOOGLE_include_directive : require

// The lines' splat resolved by a full-screen pass (targets without storage use): each pixel's
// topmost segment (lines_resolve.glsl), blended over the picture (SRC_ALPHA, ONE_MINUS_SRC_ALPHA).
#include "shared_layout.h"

layout(std430, binding = ESTUARY_BINDING_SPLAT) readonly buffer Splat {
    uint splat[];
};
layout(push_constant) uniform Push {
    float targetWidth;
} pc;
layout(location = 0) out vec4 outColor;

#include "lines_resolve.glsl"

void main() {
    uvec2 pixel = uvec2(gl_FragCoord.xy);
    vec4 colour;
    if (!topSegment(pixel.y * uint(pc.targetWidth) + pixel.x, vec2(pixel) + 0.5, colour)) discard;
    outColor = colour;
}
