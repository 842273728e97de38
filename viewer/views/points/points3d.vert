#version 450
#extension GL_GOOGLE_include_directive : require

// 3D points, pulled from their channels by gl_VertexIndex (attributes.glsl): by default each a
// vec4 (x, y, z, s),
// projected through the orbit camera the volume draw marches its rays from and coloured by s
// through the colormap (points_place.glsl, shared with the compute splat). Points behind the eye
// are culled.
#define ESTUARY_POINTS_3D
#include "shared_layout.h"

#include "attributes.glsl"
layout(binding = ESTUARY_BINDING_COLORMAP) uniform sampler2D colormaps;

layout(push_constant) uniform Push { ESTUARY_POINT3D_PUSH_CONSTANTS } pc;

#include "points_place.glsl"

layout(location = 0) out vec3 color;
layout(location = 1) flat out float round;

void main() {
    vec2 pixel;
    float value;
    uint i = uint(gl_VertexIndex);
    value = pointValue(i);
    if (placePosition(pointPosition(i), pixel))
        gl_Position = vec4(pixel / vec2(pc.targetWidth, pc.targetHeight) * 2.0 - 1.0, 0.5, 1.0);
    else
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0); // outside the clip volume: not drawn
    gl_PointSize = pc.pointSize;
    round = pc.pointSize > 2.5 ? 1.0 : 0.0;
    color = pointColour(value);
}
