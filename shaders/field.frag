#version 450
#extension GL_GOOGLE_include_directive : require

#include "shared_layout.h"

layout(binding = ESTUARY_BINDING_FIELD) uniform sampler2D field;
layout(binding = ESTUARY_BINDING_COLORMAP) uniform sampler2D colormaps;

layout(push_constant) uniform Push { ESTUARY_FIELD_PUSH_CONSTANTS } pc;

layout(constant_id = ESTUARY_SPEC_SHADING) const int shading = ESTUARY_SHADING_COLORMAP;

layout(location = 0) out vec4 outColor;

void main() {
    vec2 targetSize = vec2(pc.targetWidth, pc.targetHeight);
    vec2 fieldSize = vec2(pc.fieldWidth, pc.fieldHeight);
    // Aspect-preserving fit at zoom 1; the field point (0.5 + pan) sits at the target's centre.
    float pixelsPerTexel = min(targetSize.x / fieldSize.x, targetSize.y / fieldSize.y) * pc.zoom;
    vec2 uv = (gl_FragCoord.xy - 0.5 * targetSize) / (fieldSize * pixelsPerTexel) + 0.5 +
              vec2(pc.panX, pc.panY);

    // Sampled before any branch: implicit derivatives (and so the trilinear level choice) are only
    // defined in uniform control flow.
    vec4 texel = texture(field, uv, pc.mipBias);

    vec3 color;
    if (shading == ESTUARY_SHADING_RGB) {
        color = clamp(texel.rgb, 0.0, 1.0);
    } else {
        float value = shading == ESTUARY_SHADING_COLORMAP_MAGNITUDE ? length(texel.rg) : texel.r;
        float range = pc.valueMax - pc.valueMin;
        float t = clamp(range != 0.0 ? (value - pc.valueMin) / range : 0.0, 0.0, 1.0);
        // Texel centres of the first and last entries map to t = 0 and t = 1, so the ends are
        // exact.
        const float n = float(ESTUARY_COLORMAP_SIZE);
        vec2 colormapUv =
            vec2((t * (n - 1.0) + 0.5) / n, (pc.colormapIndex + 0.5) / pc.colormapCount);
        color = textureLod(colormaps, colormapUv, 0.0).rgb;
    }

    bool inside = all(greaterThanEqual(uv, vec2(0.0))) && all(lessThanEqual(uv, vec2(1.0)));
    outColor = inside ? vec4(color, 1.0) : vec4(ESTUARY_BACKGROUND_COLOR, 1.0);
}
