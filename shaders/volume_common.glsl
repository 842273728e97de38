// What the volume shaders share (included, not compiled on its own): the bindings and push
// constants of shared_layout.h with the field as a sampler3D, the transfer function (colormap and
// opacity ramp) and the background. Fragment (volume.frag, volume_slice.frag) and compute
// (volume.comp) shaders alike. Vulkan only: the OpenGL consumer draws 2D fields.
#extension GL_GOOGLE_include_directive : require

#include "shared_layout.h"

layout(binding = ESTUARY_BINDING_FIELD) uniform sampler3D field;
layout(binding = ESTUARY_BINDING_COLORMAP) uniform sampler2D colormaps;
layout(push_constant) uniform Push { ESTUARY_VOLUME_PUSH_CONSTANTS } pc;

vec3 volumeSize() {
    return vec3(pc.fieldWidth, pc.fieldHeight, pc.fieldDepth);
}

// `value` mapped to [0, 1] over [valueMin, valueMax], clamped: the transfer function's input.
float normalizedValue(float value) {
    float range = pc.valueMax - pc.valueMin;
    return clamp(range != 0.0 ? (value - pc.valueMin) / range : 0.0, 0.0, 1.0);
}

// The colormap at t in [0, 1]; texel centres of the first and last entries map to the ends.
vec3 colormapAt(float t) {
    const float n = float(ESTUARY_COLORMAP_SIZE);
    vec2 uv = vec2((t * (n - 1.0) + 0.5) / n, (pc.colormapIndex + 0.5) / pc.colormapCount);
    return textureLod(colormaps, uv, 0.0).rgb;
}

vec3 background() {
    return vec3(pc.backgroundR, pc.backgroundG, pc.backgroundB);
}
