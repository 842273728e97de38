// The compute splat of markers (markers_splat.comp, markers3d_splat.comp, glyphs_splat.comp): one
// invocation per marker (a grid-stride loop) places it as the raster path does
// (markers_place.glsl), stores its colour (RGBA8) for the resolve, and for every pixel of its
// turned square whose centre its shape covers (markers_shape.glsl) keeps, by one atomicMax, the
// largest of (marker + 1) << 8 | coverage in 1/255 steps: the pixel's topmost marker, the last in
// buffer order, as the raster path's blending in order leaves on top. markers_resolve.glsl then
// blends that marker's colour by its coverage over the picture. What the raster path shows and
// this does not: markers below showing through the antialiased edge of the one on top, or through
// a translucent one. Markers past 2^24 - 1 do not fit the key (the renderer draws those by raster).
#include "markers_place.glsl"
#include "markers_shape.glsl"

layout(local_size_x = 256) in;

layout(std430, binding = ESTUARY_BINDING_SPLAT) buffer Splat {
    uint splat[];
};
layout(std430, binding = ESTUARY_BINDING_MARKER_COLOURS) writeonly buffer Colours {
    uint colours[];
};

void splatMarker(uint index, ivec2 size) {
    PlacedMarker m = placeMarker(index);
    colours[index] = packUnorm4x8(m.colour);
    if (!m.drawn || any(isnan(m.centre)) || any(isinf(m.centre))) return;
    uint flags = floatBitsToUint(pc.markerFlagBits);
    int shape = int(pc.markerShape + 0.5);
    // The turned square's bounds; clamped while still float (a far-off marker must not overflow).
    vec2 extent = m.reach * (abs(m.axis) + abs(m.axis.yx));
    ivec2 first = ivec2(clamp(floor(m.centre - extent), vec2(0.0), vec2(size)));
    ivec2 end = ivec2(clamp(ceil(m.centre + extent), vec2(0.0), vec2(size)));
    vec2 across = vec2(-m.axis.y, m.axis.x);
    for (int y = first.y; y < end.y; ++y) {
        for (int x = first.x; x < end.x; ++x) {
            vec2 offset = vec2(x, y) + 0.5 - m.centre;
            vec2 local = vec2(dot(offset, m.axis), dot(offset, across));
            if (any(greaterThan(abs(local), vec2(m.reach)))) continue; // outside its square
            float coverage = markerCoverage(shape, flags, local, m.halfSize, pc.lineWidth);
            uint steps = uint(coverage * m.colour.a * 255.0 + 0.5);
            if (steps == 0u) continue;
            atomicMax(splat[uint(y) * uint(size.x) + uint(x)], (index + 1u) << 8 | steps);
        }
    }
}

void main() {
    uint count = floatBitsToUint(pc.pointCountBits);
    ivec2 size = ivec2(pc.targetWidth, pc.targetHeight);
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < count; i += stride)
        splatMarker(i, size);
}
