#version 450
#extension GL_GOOGLE_include_directive : require

// The default picture of a field: a scalar through the colormap, or channels 0-2 as colour
// (the `shading` specialization constant).
#include "field_common.glsl"

vec4 pixelColor(vec2 pixel) {
    vec2 uv = fieldUv(pixel);
    if (!insideField(uv)) return background();
    vec4 texel = sampleField(uv);
    vec3 color = shading == ESTUARY_SHADING_RGB ? clamp(texel.rgb, 0.0, 1.0)
                                                : colormapColor(fieldValue(texel));
    return vec4(color, 1.0);
}

#include "draw_main.glsl"

