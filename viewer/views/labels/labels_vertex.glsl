// A label's glyph (renderer/labels.h): vertex v is corner v % 6 of quad i = v / 6, glyph
// i % maxGlyphs of label i / maxGlyphs,
// whose anchor (position channel) and string (index channel) are read from the view's buffer as
// a CUDA kernel wrote them; the anchor is placed as the buffer views place elements
// (points_place.glsl), and the glyph's quad (em units from the anchor, already aligned) scaled to
// the size and offset. A label past the count, a string index past the table, a glyph past its
// string's, an anchor behind the eye or not a number: nothing drawn. The includer declares `pc`.
#define ESTUARY_PLACE_ONLY
#include "attributes.glsl"
#include "points_place.glsl"

// Per string a uvec4 (the table index of its first glyph, its glyphs); per glyph two entries, its
// quad and its texture coordinates as float bits.
layout(std430, binding = ESTUARY_BINDING_LABEL_RUNS) readonly buffer Runs {
    uvec4 table[];
};

layout(location = 0) out vec2 local;
layout(location = 1) flat out vec4 colour;
layout(location = 2) flat out vec4 params;

const vec2 kCorners[6] = vec2[](vec2(0, 0), vec2(1, 0), vec2(0, 1), vec2(0, 1), vec2(1, 0),
                                vec2(1, 1));

void main() {
    gl_Position = vec4(2.0, 2.0, 0.0, 1.0); // outside the clip volume: not drawn
    local = vec2(0.0);
    colour = vec4(0.0);
    params = vec4(float(ESTUARY_TEXT_GLYPH), 0.0, 0.0, 0.0);
    uint maxGlyphs = max(floatBitsToUint(pc.maxGlyphsBits), 1u);
    uint quadIndex = uint(gl_VertexIndex) / 6u;
    uint label = quadIndex / maxGlyphs, g = quadIndex % maxGlyphs;
    if (label >= floatBitsToUint(pc.labelCountBits)) return;
    uint s = fetchIndex(label);
    if (s >= floatBitsToUint(pc.stringCountBits)) return;
    uvec4 run = table[s];
    if (g >= run.y) return;
    vec3 position = pointPosition(label);
    if (any(isnan(position)) || any(isinf(position))) return;
    vec2 anchor;
    if (!placePosition(position, anchor)) return;
    vec4 quad = uintBitsToFloat(table[run.x + 2u * g]);
    vec4 uv = uintBitsToFloat(table[run.x + 2u * g + 1u]);
    vec2 st = kCorners[uint(gl_VertexIndex) % 6u];
    vec2 pixel = anchor + vec2(pc.offsetX, pc.offsetY) + mix(quad.xy, quad.zw, st) * pc.sizePixels;
    gl_Position = vec4(pixel / vec2(pc.targetWidth, pc.targetHeight) * 2.0 - 1.0, 0.0, 1.0);
    local = mix(uv.xy, uv.zw, st);
    colour = unpackUnorm4x8(floatBitsToUint(pc.colourBits));
}
