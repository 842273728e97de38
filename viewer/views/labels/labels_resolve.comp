#version 460
// The labels' compute path (renderer/labels.h), second pass: over the area's pixels, the view's
// colour blended onto the picture with the coverage labels_splat.glsl kept (as the raster pass
// blends: SRC_ALPHA, ONE_MINUS_SRC_ALPHA, alpha kept), and the coverage cleared back to 0 for the
// next frame. Pixels no glyph reached are left alone.
#include "shared_layout.h"

layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, binding = ESTUARY_BINDING_LABEL_COVERAGE) buffer Coverage {
    uint coverage[];
};
layout(binding = ESTUARY_BINDING_DRAW_TARGET, rgba8) uniform image2D target;
layout(push_constant) uniform Push {
    ESTUARY_LABELS_RESOLVE_PUSH_CONSTANTS
} pc;

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= uint(pc.width) || p.y >= uint(pc.height)) return;
    uvec2 pixel = uvec2(pc.x0, pc.y0) + p;
    uint index = pixel.y * uint(pc.pictureWidth) + pixel.x;
    uint c = coverage[index];
    if (c == 0u) return;
    coverage[index] = 0u;
    vec4 colour = unpackUnorm4x8(floatBitsToUint(pc.colourBits));
    float a = colour.a * float(c) / 65535.0;
    vec4 below = imageLoad(target, ivec2(pixel));
    imageStore(target, ivec2(pixel), vec4(colour.rgb * a + below.rgb * (1.0 - a), below.a));
}
