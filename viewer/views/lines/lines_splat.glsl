// The compute splat of lines (lines_splat.comp, lines3d_splat.comp): one invocation per segment (a
// grid-stride loop) places it as the raster path does (lines_place.glsl), stores its ends and
// colours for the resolve, and walks the rows of its quad (lineWidth wide plus a pixel each side,
// half a pixel beyond each end, as lines_vertex.glsl draws it), keeping for every pixel whose
// centre the quad covers, by one atomicMax, the largest of coverage (in 1/255 steps) << 24 |
// (segment + 1): the segment covering the pixel most, the last in order among equals (the raster
// path's top), whose colour the pixel takes. Coverage first, so that where a strip's segments
// meet, the one running through a pixel wins over its neighbour's antialiased end. Beside it, by
// one atomicAdd, the sum of -ln(1 - coverage) in fixed point: the resolve's alpha is 1 - e^-sum,
// the 1 - (1 - a1)(1 - a2)... that blending the segments over one another in order leaves, so
// overlapping antialiased edges (a strip's joints) come out as the raster path draws them.
// lines_resolve.glsl blends the colour by that alpha over the picture. What the raster path shows
// and this does not: where segments of different colours overlap, the mixture of their colours
// (each pixel takes one). Segments past 2^24 - 1 do not fit the key (the renderer draws those by
// raster).
#include "lines_place.glsl"

layout(local_size_x = 256) in;

layout(std430, binding = ESTUARY_BINDING_SPLAT) buffer Splat {
    uint splat[];
};
struct SegmentItem {
    vec4 ends;     // pa, pb in pixels
    uvec2 colours; // RGBA8 at pa, at pb
    uvec2 unused;
};
layout(std430, binding = ESTUARY_BINDING_MARKER_COLOURS) writeonly buffer Items {
    SegmentItem items[];
};

// -ln(1 - alpha) in fixed point (ESTUARY_LINE_SPLAT_SCALE a unit), at most 8: an alpha within
// e^-8 of 1 is opaque, and 8192 such terms still fit the uint.
uint transparencyTerm(float alpha) {
    float term = alpha >= 1.0 ? 8.0 : min(-log(1.0 - alpha), 8.0);
    return uint(term * ESTUARY_LINE_SPLAT_SCALE + 0.5);
}

void splatSegment(uint segment, ivec2 size) {
    vec2 pa, pb;
    vec4 ca, cb;
    bool drawn = placeSegment(segment, pa, pb, ca, cb);
    items[segment] = SegmentItem(vec4(pa, pb), uvec2(packUnorm4x8(ca), packUnorm4x8(cb)), uvec2(0));
    if (!drawn || any(isnan(vec4(pa, pb))) || any(isinf(vec4(pa, pb)))) return;
    vec2 along = distance(pa, pb) > 0.0 ? normalize(pb - pa) : vec2(1.0, 0.0);
    vec2 normal = vec2(-along.y, along.x);
    float halfWidth = 0.5 * pc.lineWidth, reach = halfWidth + 1.0;
    float len = distance(pa, pb);
    vec2 c[4] = vec2[](pa - 0.5 * along - reach * normal, pb + 0.5 * along - reach * normal,
                       pb + 0.5 * along + reach * normal, pa - 0.5 * along + reach * normal);
    float top = min(min(c[0].y, c[1].y), min(c[2].y, c[3].y));
    float bottom = max(max(c[0].y, c[1].y), max(c[2].y, c[3].y));
    // Rows and columns clamped while still float: a far-off end must not overflow them.
    int firstRow = int(clamp(ceil(top - 0.5), 0.0, float(size.y)));
    int endRow = int(clamp(floor(bottom - 0.5) + 1.0, 0.0, float(size.y)));
    for (int y = firstRow; y < endRow; ++y) {
        float yc = float(y) + 0.5;
        float left = 1e30, right = -1e30; // where the row's centre line crosses the quad
        for (int k = 0; k < 4; ++k) {
            vec2 p = c[k], q = c[(k + 1) % 4];
            if ((yc - p.y) * (yc - q.y) > 0.0) continue;
            float x = p.y != q.y ? p.x + (yc - p.y) * (q.x - p.x) / (q.y - p.y) : p.x;
            left = min(left, p.y != q.y ? x : min(p.x, q.x));
            right = max(right, p.y != q.y ? x : max(p.x, q.x));
        }
        int firstColumn = int(clamp(ceil(left - 0.5), 0.0, float(size.x)));
        int endColumn = int(clamp(floor(right - 0.5) + 1.0, 0.0, float(size.x)));
        for (int x = firstColumn; x < endColumn; ++x) {
            vec2 offset = vec2(x, y) + 0.5 - pa;
            float s = dot(offset, along), across = dot(offset, normal);
            if (s < -0.5 || s > len + 0.5 || abs(across) > reach) continue;
            float coverage = clamp(halfWidth + 0.5 - abs(across), 0.0, 1.0);
            uint steps = uint(coverage * 255.0 + 0.5);
            if (steps == 0u) continue;
            uint pixel = uint(y) * uint(size.x) + uint(x);
            atomicMax(splat[2u * pixel], steps << 24 | (segment + 1u));
            atomicAdd(splat[2u * pixel + 1u], transparencyTerm(coverage * ca.a));
        }
    }
}

void main() {
    uint count = floatBitsToUint(pc.intensity); // lines: the segments (ESTUARY_LINE_* notes)
    ivec2 size = ivec2(pc.targetWidth, pc.targetHeight);
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < count; i += stride)
        splatSegment(i, size);
}
