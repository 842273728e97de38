// What the volume shaders share (included, not compiled on its own): the bindings and push
// constants of shared_layout.h with the field as a sampler3D, the transfer function (colormap and
// opacity ramp) and the background. Fragment (volume.frag, volume_slice.frag) and compute
// (volume.comp) shaders alike. Vulkan only: the OpenGL consumer draws 2D fields.
#extension GL_GOOGLE_include_directive : require

#include "shared_layout.h"
#include "colormap.glsl"

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

// The colormap at t in [0, 1] (a categorical palette: at the value t stands for).
vec3 colormapAt(float t) {
    return colormapLookup(colormaps, pc.valueMin + t * (pc.valueMax - pc.valueMin), pc.valueMin,
                          pc.valueMax, pc.colormapIndex, pc.colormapCount);
}

vec3 background() {
    return vec3(pc.backgroundR, pc.backgroundG, pc.backgroundB);
}
