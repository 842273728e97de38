#version 450
#extension GL_GOOGLE_include_directive : require

// 2D points, pulled from the slot's storage buffer by gl_VertexIndex (no vertex input): each a
// vec4 (x, y, vx, vy), placed with the field's letterboxed view mapping (the inverse of
// field_common.glsl's fieldUv) over the domain the push constants describe, and coloured by its
// speed |(vx, vy)| through the colormap.
#include "shared_layout.h"

layout(std430, binding = ESTUARY_BINDING_POINTS) readonly buffer Points {
    vec4 points[];
};
layout(binding = ESTUARY_BINDING_COLORMAP) uniform sampler2D colormaps;

layout(push_constant) uniform Push { ESTUARY_POINT_PUSH_CONSTANTS } pc;

layout(location = 0) out vec3 color;
layout(location = 1) flat out float round;

void main() {
    vec4 point = points[gl_VertexIndex];
    vec2 targetSize = vec2(pc.targetWidth, pc.targetHeight);
    vec2 fieldSize = vec2(pc.fieldWidth, pc.fieldHeight);
    float pixelsPerTexel = min(targetSize.x / fieldSize.x, targetSize.y / fieldSize.y) * pc.zoom;
    vec2 uv = point.xy * vec2(pc.uvScaleX, pc.uvScaleY) + vec2(pc.uvOffsetX, pc.uvOffsetY);
    vec2 pixel = (uv - 0.5 - vec2(pc.panX, pc.panY)) * fieldSize * pixelsPerTexel + 0.5 * targetSize;
    gl_Position = vec4(pixel / targetSize * 2.0 - 1.0, 0.0, 1.0);
    gl_PointSize = pc.pointSize;
    round = pc.pointSize > 2.5 ? 1.0 : 0.0;

    float range = pc.valueMax - pc.valueMin;
    float t = clamp(range != 0.0 ? (length(point.zw) - pc.valueMin) / range : 0.0, 0.0, 1.0);
    const float n = float(ESTUARY_COLORMAP_SIZE);
    vec2 colormapUv = vec2((t * (n - 1.0) + 0.5) / n, (pc.colormapIndex + 0.5) / pc.colormapCount);
    color = textureLod(colormaps, colormapUv, 0.0).rgb * pc.intensity;
}
