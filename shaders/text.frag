#version 460
// What an annotation quad or a label's glyph covers (text.vert, labels.vert), text_coverage.glsl's
// colour with the distance field's change per pixel taken by fwidth.
#include "shared_layout.h"
#include "text_coverage.glsl"

layout(binding = ESTUARY_BINDING_FONT) uniform sampler2D font;
layout(binding = ESTUARY_BINDING_COLORMAP) uniform sampler2D colormaps;

layout(location = 0) in vec2 local;
layout(location = 1) flat in vec4 colour;
layout(location = 2) flat in vec4 params;
layout(location = 0) out vec4 outColour;

void main() {
    // Sampled and differentiated outside the branches: derivatives need the whole 2x2 quad.
    float distance = texture(font, local).r;
    float perPixel = max(fwidth(distance), 1e-5);
    outColour = quadColour(colormaps, local, distance, perPixel, colour, params);
}
