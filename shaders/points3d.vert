#version 450
#extension GL_GOOGLE_include_directive : require

// 3D points, pulled from the slot's storage buffer by gl_VertexIndex: each a vec4 (x, y, z, s),
// projected through the orbit camera the volume draw marches its rays from (the ray through NDC
// (x, y) is eye + t (forward + x right + y up), so a point's NDC is its offset from the eye along
// right and up over t), and coloured by s through the colormap. Points behind the eye are culled.
#include "shared_layout.h"

layout(std430, binding = ESTUARY_BINDING_POINTS) readonly buffer Points {
    vec4 points[];
};
layout(binding = ESTUARY_BINDING_COLORMAP) uniform sampler2D colormaps;

layout(push_constant) uniform Push { ESTUARY_POINT3D_PUSH_CONSTANTS } pc;

layout(location = 0) out vec3 color;
layout(location = 1) flat out float round;

void main() {
    vec4 point = points[gl_VertexIndex];
    vec3 p = (point.xyz - vec3(pc.centreX, pc.centreY, pc.centreZ)) * pc.invScale;
    vec3 d = p - vec3(pc.eyeX, pc.eyeY, pc.eyeZ);
    vec3 right = vec3(pc.rightX, pc.rightY, pc.rightZ);
    vec3 up = vec3(pc.upX, pc.upY, pc.upZ);
    float t = dot(d, vec3(pc.forwardX, pc.forwardY, pc.forwardZ));
    if (t <= 1e-4) {
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0); // outside the clip volume: not drawn
    } else {
        vec2 ndc = vec2(dot(d, right) / dot(right, right), dot(d, up) / dot(up, up)) / t;
        gl_Position = vec4(ndc, 0.5, 1.0);
    }
    gl_PointSize = pc.pointSize;
    round = pc.pointSize > 2.5 ? 1.0 : 0.0;

    float range = pc.valueMax - pc.valueMin;
    float s = clamp(range != 0.0 ? (point.w - pc.valueMin) / range : 0.0, 0.0, 1.0);
    const float n = float(ESTUARY_COLORMAP_SIZE);
    vec2 colormapUv = vec2((s * (n - 1.0) + 0.5) / n, (pc.colormapIndex + 0.5) / pc.colormapCount);
    color = textureLod(colormaps, colormapUv, 0.0).rgb * pc.intensity;
}
