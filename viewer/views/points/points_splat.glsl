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
// Variants (renderer/points.h SplatVariant), the same picture: ESTUARY_SPLAT_MERGED (packed, and
// points of one pixel first summed across a subgroup where neighbouring invocations hit the same
// pixel, one atomic a run; a run's take-back then leaves a saturated channel at least 2^20 minus the
// run's add, still saturated); ESTUARY_SPLAT_SATURATED (one uint a pixel, red, green, blue in bytes
// 0-2, each added saturating at 255 by a compare-and-swap loop; a channel at 255 resolves as any
// sum >= 255 does, to full, so the picture is the same, and a pixel already saturated in the
// channels a point adds takes no atomic at all).
#include "shared_layout.h"

#ifdef ESTUARY_SPLAT_MERGED
#define ESTUARY_SPLAT_PACKED
#endif

layout(local_size_x = 256) in;

#include "attributes.glsl"
layout(std430, binding = ESTUARY_BINDING_SPLAT) buffer Splat {
#ifdef ESTUARY_SPLAT_PACKED
    uint64_t splat[];
#else // three uints a pixel, or one (ESTUARY_SPLAT_SATURATED)
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

#ifdef ESTUARY_SPLAT_PACKED
// Adds `packed` (red, green, blue in bits 0, 21, 42) to the pixel, taking back the part of each
// channel it took to 2^20.
void addPacked(uint pixelIndex, uint64_t packed) {
    uint64_t after = atomicAdd(splat[pixelIndex], packed) + packed;
    // Each channel this add took to 2^20 or beyond gets its part taken back; the others keep
    // theirs. A channel's total then ends below 2^20 (no carry into the next) and at least 2^20
    // minus the add once its true total reached that: saturated either way.
    uint64_t takeBack = 0ul;
    if ((after & (1ul << 20)) != 0ul) takeBack |= packed & 0x1FFFFFul;
    if ((after & (1ul << 41)) != 0ul) takeBack |= packed & (0x1FFFFFul << 21);
    if ((after & (1ul << 62)) != 0ul) takeBack |= packed & (0x3FFFFFul << 42);
    if (takeBack != 0ul) atomicAdd(splat[pixelIndex], -takeBack);
}
#endif

// Adds one point's colour (1/255 steps) to the pixel.
void addToPixel(uint pixelIndex, uvec3 add) {
#if defined(ESTUARY_SPLAT_PACKED)
    addPacked(pixelIndex, uint64_t(add.r) | uint64_t(add.g) << 21 | uint64_t(add.b) << 42);
#elif defined(ESTUARY_SPLAT_SATURATED)
    uint old = splat[pixelIndex];
    for (;;) { // the value read may be stale: the swap then fails and returns the current one
        uvec3 now = min((uvec3(old, old >> 8, old >> 16) & 0xFFu) + add, uvec3(255u));
        uint next = now.r | now.g << 8 | now.b << 16;
        if (next == old) return; // saturated already in every channel this point adds to
        uint seen = atomicCompSwap(splat[pixelIndex], old, next);
        if (seen == old) return;
        old = seen;
    }
#else
    uint at = 3u * pixelIndex;
    if (add.r != 0u) atomicAdd(splat[at], add.r);
    if (add.g != 0u) atomicAdd(splat[at + 1u], add.g);
    if (add.b != 0u) atomicAdd(splat[at + 2u], add.b);
#endif
}

// Where point i lands (its snapped centre) and the colour it adds; false when it adds nothing.
bool placeAndColour(uint i, out vec2 pixel, out uvec3 add) {
    add = uvec3(0u);
    if (!placePosition(pointPosition(i), pixel)) return false;
    float value = pointValue(i);
    // The rasterizer snaps a point's centre to its sub-pixel grid (8 bits on lavapipe and NVIDIA)
    // before deciding which pixel centres the point covers.
    pixel = floor(pixel * 256.0 + 0.5) / 256.0;
    if (any(isnan(pixel)) || any(isinf(pixel))) return false; // as the rasterizer drops it
    add = uvec3(clamp(pointColour(value), 0.0, 1.0) * 255.0 + 0.5);
    return !all(equal(add, uvec3(0)));
}

// The pixels a point centred at `pixel` covers: [first, end) in x and y. Pixel x is covered when
// x + 0.5 lies in [pixel - size/2, pixel + size/2).
void coveredPixels(vec2 pixel, ivec2 size, out ivec2 first, out ivec2 end) {
    float halfSize = 0.5 * pc.pointSize;
    // Clamped while still float: a far-off point's bounds must not overflow the conversion.
    first = ivec2(clamp(ceil(pixel - halfSize - 0.5), vec2(0.0), vec2(size)));
    end = ivec2(clamp(ceil(pixel + halfSize - 0.5), vec2(0.0), vec2(size)));
}

void splatPoint(uint i, ivec2 size) {
    vec2 pixel;
    uvec3 add;
    if (!placeAndColour(i, pixel, add)) return;
    ivec2 first, end;
    coveredPixels(pixel, size, first, end);
    bool round = pc.pointSize > 2.5;
    for (int y = first.y; y < end.y; ++y) {
        for (int x = first.x; x < end.x; ++x) {
            if (round) {
                vec2 fromCentre = (vec2(x, y) + 0.5 - pixel) / pc.pointSize;
                if (dot(fromCentre, fromCentre) > 0.25) continue;
            }
            addToPixel(uint(y) * uint(size.x) + uint(x), add);
        }
    }
}

#ifdef ESTUARY_SPLAT_MERGED
// Points of at most one pixel, 256 a workgroup per round, every invocation of a subgroup in every
// round (the shuffles need them all). A run of neighbouring invocations on one pixel is summed
// into its first, which adds the run with one atomic: per channel at most 255 times the subgroup's
// size, well inside the channel's 21 bits.
void splatMerged(uint count, ivec2 size) {
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uint lane = gl_SubgroupInvocationID;
    for (uint start = gl_WorkGroupID.x * gl_WorkGroupSize.x; start < count; start += stride) {
        uint i = start + gl_LocalInvocationIndex;
        uint key = 0xFFFFFFFFu; // no pixel
        uvec3 add = uvec3(0u);
        vec2 pixel;
        if (i < count && placeAndColour(i, pixel, add)) {
            ivec2 first, end;
            coveredPixels(pixel, size, first, end);
            if (all(lessThan(first, end))) key = uint(first.y) * uint(size.x) + uint(first.x);
        }
        bool head = lane == 0u || subgroupShuffleUp(key, 1u) != key;
        // Where no two neighbours share a pixel (a random order's usual round), each adds alone.
        if (!subgroupAll(head)) {
            // Segmented sums over doubling windows: `whole` says [lane, lane + d) is all this
            // run, so the window d further on continues it where its key is this one.
            uvec2 sum = uvec2(add.r | add.g << 16, add.b);
            bool whole = true;
            for (uint d = 1u; d < gl_SubgroupSize; d *= 2u) {
                uint nextKey = subgroupShuffleDown(key, d);
                uvec2 nextSum = subgroupShuffleDown(sum, d);
                bool nextWhole = subgroupShuffleDown(whole, d);
                bool continues = whole && lane + d < gl_SubgroupSize && nextKey == key;
                if (continues) sum += nextSum;
                whole = continues && nextWhole;
            }
            add = uvec3(sum.x & 0xFFFFu, sum.x >> 16, sum.y);
        }
        if (head && key != 0xFFFFFFFFu)
            addPacked(key, uint64_t(add.r) | uint64_t(add.g) << 21 | uint64_t(add.b) << 42);
    }
}
#endif

void main() {
    uint count = floatBitsToUint(pc.pointCountBits);
    ivec2 size = ivec2(pc.targetWidth, pc.targetHeight);
#ifdef ESTUARY_SPLAT_MERGED
    if (pc.pointSize <= 1.0) { // uniform: the whole dispatch takes one branch
        splatMerged(count, size);
        return;
    }
#endif
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < count; i += stride)
        splatPoint(i, size);
}
