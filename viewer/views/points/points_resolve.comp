#version 450
#extension GL_GOOGLE_include_directive : require

// The compute splat's resolve into a target made with storage use (the offscreen picture): adds
// each pixel's splatted colour (in 1/255 steps) to the pixel, clamped as additive blending clamps,
// in place; alpha stays. The same sums as points_resolve.frag, without the raster units, which on
// the H100 fill ~6 Gpixel/s (PERFORMANCE.md). Pixels no point reached are left alone.
#include "shared_layout.h"

layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, binding = ESTUARY_BINDING_SPLAT) readonly buffer Splat {
    uint splat[];
};
layout(binding = ESTUARY_BINDING_DRAW_TARGET, rgba8) uniform image2D target;
// The first members of both point blocks (ESTUARY_POINT_PUSH_CONSTANTS, ..._POINT3D_...).
layout(push_constant) uniform Push {
    float targetWidth;
    float targetHeight;
} pc;

layout(constant_id = 0) const bool kPacked = false;

#include "points_splat_sum.glsl"

void main() {
    uvec2 pixel = gl_GlobalInvocationID.xy;
    if (pixel.x >= uint(pc.targetWidth) || pixel.y >= uint(pc.targetHeight)) return;
    uvec3 sum = splatSum(pixel.y * uint(pc.targetWidth) + pixel.x);
    if (all(equal(sum, uvec3(0u)))) return;
    vec4 below = imageLoad(target, ivec2(pixel));
    imageStore(target, ivec2(pixel), vec4(min(below.rgb + vec3(sum) / 255.0, 1.0), below.a));
}
