#version 450
#extension GL_GOOGLE_include_directive : require

// The fluid's vorticity view: the curl dv/dx - du/dy of a velocity image (channels 0 and 1, cells
// per step) through the colormap, centred on 0 by the view's symmetric range. Derived here from the
// velocity the simulation already writes, so showing it costs the simulation nothing.
#include "field_common.glsl"

vec4 pixelColor(vec2 pixel) {
    vec2 uv = fieldUv(pixel);
    if (!insideField(uv)) return background();
    // Central differences one step apart each way: a texel when magnified, a screen pixel when
    // minified (the level the sampler shows).
    vec2 fieldSize = vec2(pc.fieldWidth, pc.fieldHeight);
    float stepTexels = max(1.0, 1.0 / pixelsPerTexel());
    vec2 du = vec2(stepTexels / fieldSize.x, 0.0), dv = vec2(0.0, stepTexels / fieldSize.y);
    float dvdx = sampleField(uv + du).g - sampleField(uv - du).g;
    float dudy = sampleField(uv + dv).r - sampleField(uv - dv).r;
    float curl = (dvdx - dudy) / (2.0 * stepTexels);
    return vec4(colormapColor(curl), 1.0);
}

#include "draw_main.glsl"

