#version 460
// What an annotation quad or a label's glyph covers (text.vert, labels.vert): a rectangle, a
// colormap ramp, an antialiased line, or a glyph of the font's signed distance field, whose edge
// is antialiased over one screen pixel whatever the size (the field's change per pixel,
// fwidth), so text stays crisp from small to large.
#include "shared_layout.h"
#include "colormap.glsl"

layout(binding = ESTUARY_BINDING_FONT) uniform sampler2D font;
layout(binding = ESTUARY_BINDING_COLORMAP) uniform sampler2D colormaps;

layout(location = 0) in vec2 local;
layout(location = 1) flat in vec4 colour;
layout(location = 2) flat in vec4 params;
layout(location = 0) out vec4 outColour;

// FreeType's distance fields put the edge at 128.
const float kEdge = 128.0 / 255.0;

void main() {
    // Sampled and differentiated outside the branches: derivatives need the whole 2x2 quad.
    float distance = texture(font, local).r;
    float perPixel = max(fwidth(distance), 1e-5);
    uint kind = uint(params.x);
    vec3 rgb = colour.rgb;
    float alpha = 1.0;
    if (kind == ESTUARY_TEXT_GLYPH) {
        alpha = clamp((distance - kEdge) / perPixel + 0.5, 0.0, 1.0);
    } else if (kind == ESTUARY_TEXT_LINE) { // local: along from the start, across from the middle
        float halfWidth = params.y, len = params.z;
        alpha = clamp(halfWidth + 0.5 - abs(local.y), 0.0, 1.0) *
                clamp(local.x + 0.5, 0.0, 1.0) * clamp(len - local.x + 0.5, 0.0, 1.0);
    } else if (kind == ESTUARY_TEXT_RAMP) { // local.x: 0 at the map's start, 1 at its end
        float t = clamp(local.x, 0.0, 1.0), entries = params.w;
        float value = entries > 0.0 ? min(floor(t * entries), entries - 1.0) : t;
        rgb = colormapLookup(colormaps, value, 0.0, 1.0, params.y, params.z);
    }
    outColour = vec4(rgb, colour.a * alpha);
}
