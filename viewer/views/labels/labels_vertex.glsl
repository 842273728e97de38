// A label's glyph drawn by raster (renderer/labels.h): vertex v is corner v % 6 of quad
// i = v / 6, glyph i % maxGlyphs of label i / maxGlyphs (labels_glyph.glsl), filled by text.frag.
// The includer declares `pc`.
#include "labels_glyph.glsl"

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
    vec4 quad, uv;
    if (!labelGlyph(quadIndex / maxGlyphs, quadIndex % maxGlyphs, quad, uv)) return;
    vec2 st = kCorners[uint(gl_VertexIndex) % 6u];
    vec2 pixel = mix(quad.xy, quad.zw, st);
    gl_Position = vec4(pixel / vec2(pc.targetWidth, pc.targetHeight) * 2.0 - 1.0, 0.0, 1.0);
    local = mix(uv.xy, uv.zw, st);
    colour = unpackUnorm4x8(floatBitsToUint(pc.colourBits));
}
