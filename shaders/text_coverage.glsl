// What an annotation quad or a label's glyph covers at its local coordinates: a rectangle, a
// colormap ramp, an antialiased line, or a glyph of the font's signed distance field, its edge
// antialiased over one screen pixel whatever the size (`perPixel`: the field's change over one
// pixel). Shared by the raster path (text.frag, perPixel from fwidth) and the compute path
// (text_tiles.comp, labels_splat.glsl, perPixel from quadFwidth), so both draw the same coverage.
// The includer binds `colormaps` for the ramps.
#ifndef ESTUARY_TEXT_COVERAGE_GLSL
#define ESTUARY_TEXT_COVERAGE_GLSL

#include "colormap.glsl"

// FreeType's distance fields put the edge at 128.
const float kEdge = 128.0 / 255.0;

// fwidth as a fragment shader's fine derivatives take it, for compute: the field here, at the
// pixel's neighbour across in its 2x2 quad (quads start at even pixels) and at its neighbour
// down. The exact field change per pixel (texels per pixel over the spread) was tried instead:
// it draws 11-pixel labels with a quarter fewer fully lit pixels than raster, whose differences
// shrink across a thin stroke's ridge, so small text looked fainter by compute.
float quadFwidth(float here, float across, float down) {
    return max(abs(across - here) + abs(down - here), 1e-5);
}
// The pixel's neighbours in its 2x2 quad, as steps of +-1 across and down.
vec2 quadNeighbour(ivec2 pixel) {
    return vec2((pixel.x & 1) == 0 ? 1.0 : -1.0, (pixel.y & 1) == 0 ? 1.0 : -1.0);
}

float glyphCoverage(float distance, float perPixel) {
    return clamp((distance - kEdge) / perPixel + 0.5, 0.0, 1.0);
}

// The colour a quad of kind params.x puts at `local` (alpha: its colour's times its coverage);
// `distance` (the field there) and `perPixel` are read for glyphs only.
vec4 quadColour(sampler2D colormaps, vec2 local, float distance, float perPixel, vec4 colour,
                vec4 params) {
    uint kind = uint(params.x);
    vec3 rgb = colour.rgb;
    float alpha = 1.0;
    if (kind == ESTUARY_TEXT_GLYPH) {
        alpha = glyphCoverage(distance, perPixel);
    } else if (kind == ESTUARY_TEXT_LINE) { // local: along from the start, across from the middle
        float halfWidth = params.y, len = params.z;
        alpha = clamp(halfWidth + 0.5 - abs(local.y), 0.0, 1.0) *
                clamp(local.x + 0.5, 0.0, 1.0) * clamp(len - local.x + 0.5, 0.0, 1.0);
    } else if (kind == ESTUARY_TEXT_RAMP) { // local.x: 0 at the map's start, 1 at its end
        float t = clamp(local.x, 0.0, 1.0), entries = params.w;
        float value = entries > 0.0 ? min(floor(t * entries), entries - 1.0) : t;
        rgb = colormapLookup(colormaps, value, 0.0, 1.0, params.y, params.z);
    }
    return vec4(rgb, colour.a * alpha);
}

#endif
