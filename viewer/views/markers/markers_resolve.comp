#version 450
#extension GL_GOOGLE_include_directive : require

// The markers' splat resolved into a target made with storage use (the offscreen picture): each
// pixel's topmost marker blended over it in place (markers_resolve.glsl), as the raster path's
// SRC_ALPHA, ONE_MINUS_SRC_ALPHA blending would; alpha stays. Pixels no marker reached are left.
#include "shared_layout.h"

layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, binding = ESTUARY_BINDING_SPLAT) readonly buffer Splat {
    uint splat[];
};
layout(std430, binding = ESTUARY_BINDING_MARKER_COLOURS) readonly buffer Colours {
    uint colours[];
};
layout(binding = ESTUARY_BINDING_DRAW_TARGET, rgba8) uniform image2D target;
// The first members of the markers' blocks.
layout(push_constant) uniform Push {
    float targetWidth;
    float targetHeight;
} pc;

#include "markers_resolve.glsl"

void main() {
    uvec2 pixel = gl_GlobalInvocationID.xy;
    if (pixel.x >= uint(pc.targetWidth) || pixel.y >= uint(pc.targetHeight)) return;
    vec4 colour;
    if (!topMarker(pixel.y * uint(pc.targetWidth) + pixel.x, colour)) return;
    vec4 below = imageLoad(target, ivec2(pixel));
    imageStore(target, ivec2(pixel), vec4(mix(below.rgb, colour.rgb, colour.a), below.a));
}
