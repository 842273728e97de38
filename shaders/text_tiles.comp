#version 460
// The annotation quads drawn by compute (renderer/text.h, recordAnnotationsCompute), for GPUs
// whose few raster units make a pass of small quads cost more than its pixels (PERFORMANCE.md,
// "Annotations"): a workgroup per non-empty screen tile (ESTUARY_BINDING_TEXT_TILES), a thread per
// pixel, which blends the tile's quads in their drawing order in registers over the picture's
// pixel, read and written once. The coverage is text.frag's (text_coverage.glsl), a pixel covered
// where its centre is inside the quad (the top-left rule on its edges, as raster), a glyph's
// fwidth taken as raster's fine derivatives take it (quadFwidth).
#include "shared_layout.h"
#include "text_coverage.glsl"
#include "text_quad.glsl"

layout(local_size_x = ESTUARY_TEXT_TILE, local_size_y = ESTUARY_TEXT_TILE) in;

layout(binding = ESTUARY_BINDING_FONT) uniform sampler2D font;
layout(binding = ESTUARY_BINDING_COLORMAP) uniform sampler2D colormaps;
layout(std430, binding = ESTUARY_BINDING_TEXT_TILES) readonly buffer Tiles {
    uint words[];
};
layout(binding = ESTUARY_BINDING_DRAW_TARGET, rgba8) uniform image2D target;
layout(push_constant) uniform Push {
    ESTUARY_TEXT_TILES_PUSH_CONSTANTS
} pc;

// Whether parameter `s` along `axis` is inside [0, 1], the end an edge on the top or the left
// included and the other not (the rasterizer's top-left rule, so both paths fill the same pixels).
bool inside(float s, vec2 axis) {
    bool forward = axis.x != 0.0 ? axis.x > 0.0 : axis.y > 0.0;
    return forward ? (s >= 0.0 && s < 1.0) : (s > 0.0 && s <= 1.0);
}

void main() {
    uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (tile >= floatBitsToUint(pc.tileCountBits)) return;
    uint packedXy = words[4u * tile], first = words[4u * tile + 1u],
         count = words[4u * tile + 2u];
    ivec2 pixel = ivec2(packedXy & 0xFFFFu, packedXy >> 16u) * ESTUARY_TEXT_TILE +
                  ivec2(gl_LocalInvocationID.xy);
    if (pixel.x >= int(pc.targetWidth) || pixel.y >= int(pc.targetHeight)) return;
    uint clipBase = floatBitsToUint(pc.clipBaseBits), indexBase = floatBitsToUint(pc.indexBaseBits);
    vec2 centre = vec2(pixel) + 0.5;
    vec4 below = vec4(0.0);
    bool touched = false;
    for (uint i = first; i < first + count; ++i) {
        TextQuad q = quads[words[indexBase + i]];
        uint clip = clipBase + 4u * floatBitsToUint(q.extra.y);
        if (pixel.x < int(words[clip]) || pixel.y < int(words[clip + 1u]) ||
            pixel.x >= int(words[clip + 2u]) || pixel.y >= int(words[clip + 3u]))
            continue;
        // centre = origin + s axisU + t axisV, solved for (s, t).
        vec2 d = centre - q.origin;
        float det = q.axisU.x * q.axisV.y - q.axisU.y * q.axisV.x;
        if (det == 0.0) continue;
        vec2 st = vec2(d.x * q.axisV.y - d.y * q.axisV.x, q.axisU.x * d.y - q.axisU.y * d.x) / det;
        if (!inside(st.x, q.axisU) || !inside(st.y, q.axisV)) continue;
        vec2 local = mix(q.local.xy, q.local.zw, st);
        float distance = 0.0, perPixel = 1.0;
        if (uint(q.params.x) == ESTUARY_TEXT_GLYPH) {
            // (s, t) one pixel across and down: the inverse of the axes' matrix.
            vec2 step = quadNeighbour(pixel);
            vec2 across = st + step.x * vec2(q.axisV.y, -q.axisU.y) / det;
            vec2 down = st + step.y * vec2(-q.axisV.x, q.axisU.x) / det;
            distance = textureLod(font, local, 0.0).r;
            perPixel = quadFwidth(
                distance, textureLod(font, mix(q.local.xy, q.local.zw, across), 0.0).r,
                textureLod(font, mix(q.local.xy, q.local.zw, down), 0.0).r);
        }
        vec4 c = quadColour(colormaps, local, distance, perPixel, q.colour, q.params);
        if (!touched) {
            below = imageLoad(target, pixel);
            touched = true;
        }
        // The raster pass's blend: SRC_ALPHA, ONE_MINUS_SRC_ALPHA on colour, alpha kept, rounded
        // to the picture's 8 bits after each quad as raster's writes are (so overlapping
        // translucent quads come out as raster draws them, not a level or two apart).
        below.rgb = round((c.rgb * c.a + below.rgb * (1.0 - c.a)) * 255.0) / 255.0;
    }
    if (touched) imageStore(target, pixel, below);
}
