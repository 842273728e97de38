// A label's glyph (renderer/labels.h), as the raster path (labels_vertex.glsl) and the compute
// path (labels_splat.glsl) place it: glyph g of label `label`, whose anchor (position channel) and
// string (index channel) are read from the view's buffer as a CUDA kernel wrote them, the anchor
// placed as the buffer views place elements (points_place.glsl), the glyph's quad (em units from
// the anchor, already aligned) scaled to the size and offset. A label past the count, a string
// index past the table, a glyph past its string's, an anchor behind the eye or not a number:
// nothing drawn. The includer declares `pc`.
#define ESTUARY_PLACE_ONLY
#include "attributes.glsl"
#include "points_place.glsl"

// Per string a uvec4 (the table index of its first glyph, its glyphs); per glyph two entries, its
// quad and its texture coordinates as float bits.
layout(std430, binding = ESTUARY_BINDING_LABEL_RUNS) readonly buffer Runs {
    uvec4 table[];
};

// The glyph's quad in the area's pixels (x0, y0, x1, y1) and its texture coordinates (u0, v0, u1,
// v1); false where it is not drawn.
bool labelGlyph(uint label, uint g, out vec4 quad, out vec4 uv) {
    quad = vec4(0.0);
    uv = vec4(0.0);
    if (label >= floatBitsToUint(pc.labelCountBits)) return false;
    uint s = fetchIndex(label);
    if (s >= floatBitsToUint(pc.stringCountBits)) return false;
    uvec4 run = table[s];
    if (g >= run.y) return false;
    vec3 position = pointPosition(label);
    if (any(isnan(position)) || any(isinf(position))) return false;
    vec2 anchor;
    if (!placePosition(position, anchor)) return false;
    vec4 em = uintBitsToFloat(table[run.x + 2u * g]);
    uv = uintBitsToFloat(table[run.x + 2u * g + 1u]);
    vec2 at = anchor + vec2(pc.offsetX, pc.offsetY);
    quad = vec4(at + em.xy * pc.sizePixels, at + em.zw * pc.sizePixels);
    return true;
}
