#version 450
#extension GL_GOOGLE_include_directive : require

// The lines' splat resolved into a target made with storage use (the offscreen picture): each
// pixel's topmost segment blended over it in place (lines_resolve.glsl), as the raster path's
// SRC_ALPHA, ONE_MINUS_SRC_ALPHA blending would; alpha stays. Pixels no segment reached are left.
#include "shared_layout.h"

layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, binding = ESTUARY_BINDING_SPLAT) readonly buffer Splat {
    uint splat[];
};
layout(binding = ESTUARY_BINDING_DRAW_TARGET, rgba8) uniform image2D target;
// The first members of the lines' blocks.
layout(push_constant) uniform Push {
    float targetWidth;
    float targetHeight;
} pc;

#include "lines_resolve.glsl"

void main() {
    uvec2 pixel = gl_GlobalInvocationID.xy;
    if (pixel.x >= uint(pc.targetWidth) || pixel.y >= uint(pc.targetHeight)) return;
    vec4 colour;
    if (!topSegment(pixel.y * uint(pc.targetWidth) + pixel.x, vec2(pixel) + 0.5, colour)) return;
    vec4 below = imageLoad(target, ivec2(pixel));
    imageStore(target, ivec2(pixel), vec4(mix(below.rgb, colour.rgb, colour.a), below.a));
}
