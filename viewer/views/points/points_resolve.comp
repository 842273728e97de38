#version 450
#extension GL_GOOGLE_include_directive : require

// The compute splat's resolve into a target made with storage use (the offscreen picture): adds
// each pixel's splatted colour (in 1/255 steps) to the pixel, clamped as additive blending clamps,
// in place; alpha stays. The same sums as points_resolve.frag, without the raster units, which on
// the H100 fill ~6 Gpixel/s (PERFORMANCE.md). Pixels no point reached are left alone. It zeroes
// the sums it read, so the buffer is clear for the next splat without a pass of its own (the
// renderer clears it once, after setPointsExtent): a pixel no point reached costs one read. Drawn
// over a cleared target (PointsDraw::clearTarget), it is the clear too: every pixel written once.
#include "shared_layout.h"

// A row of 32 pixels a subgroup on NVIDIA: 256 contiguous bytes of the packed sums.
layout(local_size_x = 32, local_size_y = 8) in;

layout(std430, binding = ESTUARY_BINDING_SPLAT) buffer Splat {
    uint splat[];
};
layout(binding = ESTUARY_BINDING_DRAW_TARGET, rgba8) uniform image2D target;
// Its own block, pushed over the draw's (renderer/points.cpp recordComputeResolve). clears != 0:
// the target's old content is undefined; every pixel is written, the background plus its sums.
layout(push_constant) uniform Push {
    float targetWidth;
    float targetHeight;
    float backgroundR;
    float backgroundG;
    float backgroundB;
    float clears;
} pc;

layout(constant_id = 0) const uint kFormat = 0u; // points_splat_sum.glsl

#include "points_splat_sum.glsl"

void clearSplat(uint index) {
    if (kFormat == kPacked) {
        splat[2u * index] = 0u;
        splat[2u * index + 1u] = 0u;
    } else if (kFormat == kSaturated) {
        splat[index] = 0u;
    } else {
        splat[3u * index] = splat[3u * index + 1u] = splat[3u * index + 2u] = 0u;
    }
}

void main() {
    uvec2 pixel = gl_GlobalInvocationID.xy;
    if (pixel.x >= uint(pc.targetWidth) || pixel.y >= uint(pc.targetHeight)) return;
    uint index = pixel.y * uint(pc.targetWidth) + pixel.x;
    uvec3 sum = splatSum(index);
    bool lit = any(notEqual(sum, uvec3(0u)));
    if (lit) clearSplat(index);
    if (pc.clears != 0.0) {
        // What a clear pass would have stored (UNORM8, rounded), and the sums added on it.
        vec3 background = clamp(vec3(pc.backgroundR, pc.backgroundG, pc.backgroundB), 0.0, 1.0);
        vec3 below = round(background * 255.0) / 255.0;
        imageStore(target, ivec2(pixel), vec4(min(below + vec3(sum) / 255.0, 1.0), 1.0));
        return;
    }
    if (!lit) return;
    vec4 below = imageLoad(target, ivec2(pixel));
    imageStore(target, ivec2(pixel), vec4(min(below.rgb + vec3(sum) / 255.0, 1.0), below.a));
}
