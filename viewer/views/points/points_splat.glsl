// The compute splat of points (points_splat.comp, points3d_splat.comp): one invocation per point
// (a grid-stride loop, so any count fits the dispatch limits) adds the point's colour to every
// pixel it covers with atomics into the splat buffer, which points_resolve.frag then adds onto the
// target. It draws what the raster path draws (points_place.glsl places and colours both): pixels
// whose centres lie in the point's square, inside its disc once points are wider than 2.5 pixels;
// like lavapipe and NVIDIA, a wide point whose centre left the target still covers the pixels it
// reaches inside it (the guard band; the strict clip rule would drop it whole). The colour is added
// in 1/255 steps rounded per point, as additive blending into an 8-bit target rounds each point,
// so the sum is the same in any order. With ESTUARY_SPLAT_PACKED (devices with 64-bit atomics) a
// pixel is one uint64 holding red in bits 0-20, green 21-41, blue 42-63, added by one atomic; the
// part of an add that takes a channel to 2^20 (4112 points of full colour, long saturated) is taken
// back, so the channel's total stays below 2^21 and never carries into the next, unless some 4000
// full-colour adds reach one pixel between an add and its take-back (a channel's field can then
// wrap before the take-backs land). Else three uints, red, green, blue, one atomic each.
#include "shared_layout.h"

layout(local_size_x = 256) in;

#include "attributes.glsl"
layout(std430, binding = ESTUARY_BINDING_SPLAT) buffer Splat {
#ifdef ESTUARY_SPLAT_PACKED
    uint64_t splat[];
#else
    uint splat[];
#endif
};
layout(binding = ESTUARY_BINDING_COLORMAP) uniform sampler2D colormaps;

#ifdef ESTUARY_POINTS_3D
layout(push_constant) uniform Push { ESTUARY_POINT3D_PUSH_CONSTANTS } pc;
#else
layout(push_constant) uniform Push { ESTUARY_POINT_PUSH_CONSTANTS } pc;
#endif

#include "points_place.glsl"

void splatPoint(uint i, ivec2 size) {
    vec2 pixel;
    if (!placePosition(pointPosition(i), pixel)) return;
    float value = pointValue(i);
    // The rasterizer snaps a point's centre to its sub-pixel grid (8 bits on lavapipe and NVIDIA)
    // before deciding which pixel centres the point covers.
    pixel = floor(pixel * 256.0 + 0.5) / 256.0;
    if (any(isnan(pixel)) || any(isinf(pixel))) return; // as the rasterizer drops it
    uvec3 add = uvec3(clamp(pointColour(value), 0.0, 1.0) * 255.0 + 0.5);
    if (all(equal(add, uvec3(0)))) return;
    // Pixel x is covered when x + 0.5 lies in [pixel - size/2, pixel + size/2).
    float halfSize = 0.5 * pc.pointSize;
    // Clamped while still float: a far-off point's bounds must not overflow the conversion.
    ivec2 first = ivec2(clamp(ceil(pixel - halfSize - 0.5), vec2(0.0), vec2(size)));
    ivec2 end = ivec2(clamp(ceil(pixel + halfSize - 0.5), vec2(0.0), vec2(size)));
    bool round = pc.pointSize > 2.5;
    for (int y = first.y; y < end.y; ++y) {
        for (int x = first.x; x < end.x; ++x) {
            if (round) {
                vec2 fromCentre = (vec2(x, y) + 0.5 - pixel) / pc.pointSize;
                if (dot(fromCentre, fromCentre) > 0.25) continue;
            }
            uint pixelIndex = uint(y) * uint(size.x) + uint(x);
#ifdef ESTUARY_SPLAT_PACKED
            uint64_t packed = uint64_t(add.r) | uint64_t(add.g) << 21 | uint64_t(add.b) << 42;
            uint64_t after = atomicAdd(splat[pixelIndex], packed) + packed;
            // Each channel this add took to 2^20 or beyond gets its part taken back; the others
            // keep theirs. A channel's total then ends below 2^20 (no carry into the next) and at
            // least 2^20 - 255 once its true total reached that: saturated either way.
            uint64_t takeBack = 0ul;
            if ((after & (1ul << 20)) != 0ul) takeBack |= packed & 0x1FFFFFul;
            if ((after & (1ul << 41)) != 0ul) takeBack |= packed & (0x1FFFFFul << 21);
            if ((after & (1ul << 62)) != 0ul) takeBack |= packed & (0x3FFFFFul << 42);
            if (takeBack != 0ul) atomicAdd(splat[pixelIndex], -takeBack);
#else
            uint at = 3u * pixelIndex;
            if (add.r != 0u) atomicAdd(splat[at], add.r);
            if (add.g != 0u) atomicAdd(splat[at + 1u], add.g);
            if (add.b != 0u) atomicAdd(splat[at + 2u], add.b);
#endif
        }
    }
}

void main() {
    uint count = floatBitsToUint(pc.pointCountBits);
    ivec2 size = ivec2(pc.targetWidth, pc.targetHeight);
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < count; i += stride)
        splatPoint(i, size);
}
