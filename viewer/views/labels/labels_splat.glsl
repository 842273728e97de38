// The labels' compute path (renderer/labels.h, recordLabelsCompute), first pass: a workgroup per
// glyph slot (grid-stride over count x longest string), its threads over the glyph's pixels,
// each pixel's coverage (text_coverage.glsl, the field's change per pixel from the push block
// instead of fwidth) kept as its largest over the view's glyphs by atomicMax into the coverage
// buffer, in 1/65535 steps. Every glyph of a view has its colour, so the largest coverage is the
// same whatever order the GPU runs them in; labels_resolve.comp blends it. The includer declares
// `pc` (a labels block).
layout(local_size_x = 64) in;

layout(binding = ESTUARY_BINDING_FONT) uniform sampler2D font;
layout(std430, binding = ESTUARY_BINDING_LABEL_COVERAGE) buffer Coverage {
    uint coverage[];
};

#include "labels_glyph.glsl"
#include "text_coverage.glsl"

void main() {
    uint maxGlyphs = max(floatBitsToUint(pc.maxGlyphsBits), 1u);
    uint slots = floatBitsToUint(pc.labelCountBits) * maxGlyphs;
    vec2 area = vec2(pc.areaX, pc.areaY);
    // The area's pixels that are also the picture's: [first, limit).
    vec2 first = max(vec2(0.0), -area);
    vec2 limit = min(vec2(pc.targetWidth, pc.targetHeight),
                     vec2(pc.pictureWidth, pc.pictureHeight) - area);
    uint width = uint(pc.pictureWidth);
    for (uint slot = gl_WorkGroupID.x; slot < slots; slot += gl_NumWorkGroups.x) {
        vec4 quad, uv;
        if (!labelGlyph(slot / maxGlyphs, slot % maxGlyphs, quad, uv)) continue;
        // The pixels whose centres are in [x0, x1) x [y0, y1), as raster fills the quad.
        ivec2 lo = ivec2(clamp(ceil(quad.xy - 0.5), first, max(first, limit)));
        ivec2 hi = ivec2(clamp(ceil(quad.zw - 0.5), first, max(first, limit)));
        ivec2 size = hi - lo;
        if (size.x <= 0 || size.y <= 0) continue;
        vec2 span = quad.zw - quad.xy;
        uint n = uint(size.x) * uint(size.y);
        for (uint i = gl_LocalInvocationID.x; i < n; i += gl_WorkGroupSize.x) {
            ivec2 p = lo + ivec2(int(i % uint(size.x)), int(i / uint(size.x)));
            vec2 st = (vec2(p) + 0.5 - quad.xy) / span;
            // Quads of the picture's pixels, as raster's: the area starts anywhere.
            vec2 step = quadNeighbour(ivec2(area) + p);
            float distance = textureLod(font, mix(uv.xy, uv.zw, st), 0.0).r;
            float across = textureLod(font, mix(uv.xy, uv.zw, st + vec2(step.x, 0.0) / span), 0.0).r;
            float down = textureLod(font, mix(uv.xy, uv.zw, st + vec2(0.0, step.y) / span), 0.0).r;
            float a = glyphCoverage(distance, quadFwidth(distance, across, down));
            if (a <= 0.0) continue;
            uvec2 pixel = uvec2(ivec2(area) + p);
            atomicMax(coverage[pixel.y * width + pixel.x], uint(round(a * 65535.0)));
        }
    }
}
