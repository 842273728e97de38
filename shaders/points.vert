#version 450
#extension GL_GOOGLE_include_directive : require

// Particles as points, pulled from the slot's storage buffer by gl_VertexIndex (no vertex input):
// placed with the field's letterboxed view mapping (the inverse of field_common.glsl's fieldUv) and
// coloured by speed through the colormap.
#include "shared_layout.h"

layout(std430, binding = ESTUARY_BINDING_POINTS) readonly buffer Particles {
    vec4 particles[]; // x, y (cells), vx, vy (cells per step)
};
layout(binding = ESTUARY_BINDING_COLORMAP) uniform sampler2D colormaps;

layout(push_constant) uniform Push { ESTUARY_POINT_PUSH_CONSTANTS } pc;

layout(location = 0) out vec3 color;

void main() {
    vec4 particle = particles[gl_VertexIndex];
    vec2 targetSize = vec2(pc.targetWidth, pc.targetHeight);
    vec2 fieldSize = vec2(pc.fieldWidth, pc.fieldHeight);
    float pixelsPerTexel = min(targetSize.x / fieldSize.x, targetSize.y / fieldSize.y) * pc.zoom;
    // Cell i's centre is texel i's centre, at uv (i + 0.5) / size.
    vec2 uv = (particle.xy + 0.5) / fieldSize;
    vec2 pixel = (uv - 0.5 - vec2(pc.panX, pc.panY)) * fieldSize * pixelsPerTexel + 0.5 * targetSize;
    gl_Position = vec4(pixel / targetSize * 2.0 - 1.0, 0.0, 1.0);
    gl_PointSize = pc.pointSize;

    float t = clamp(length(particle.zw) / pc.speedMax, 0.0, 1.0);
    const float n = float(ESTUARY_COLORMAP_SIZE);
    vec2 colormapUv = vec2((t * (n - 1.0) + 0.5) / n, (pc.colormapIndex + 0.5) / pc.colormapCount);
    color = textureLod(colormaps, colormapUv, 0.0).rgb * pc.intensity;
}
