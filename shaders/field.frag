#version 450
#extension GL_GOOGLE_include_directive : require

// The default picture of a field: a scalar through the colormap, or channels 0-2 as colour
// (the `shading` specialization constant).
#include "field_common.glsl"

void main() {
    vec2 uv = fieldUv();
    // Sampled before any branch: implicit derivatives (and so the trilinear level choice) are only
    // defined in uniform control flow.
    vec4 texel = texture(field, uv, pc.mipBias);
    vec3 color = shading == ESTUARY_SHADING_RGB ? clamp(texel.rgb, 0.0, 1.0)
                                                : colormapColor(fieldValue(texel));
    outColor = insideField(uv) ? vec4(color, 1.0) : background();
}
