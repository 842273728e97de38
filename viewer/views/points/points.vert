#version 450
#extension GL_GOOGLE_include_directive : require

// 2D points, pulled from their channels by gl_VertexIndex (no vertex input; attributes.glsl): by
// default each a vec4 (x, y, vx, vy), placed with the field's letterboxed view mapping over the domain the push
// constants describe and coloured by its speed |(vx, vy)| through the colormap (points_place.glsl,
// shared with the compute splat).
#include "shared_layout.h"

#include "attributes.glsl"
layout(binding = ESTUARY_BINDING_COLORMAP) uniform sampler2D colormaps;

layout(push_constant) uniform Push { ESTUARY_POINT_PUSH_CONSTANTS } pc;

#include "points_place.glsl"

layout(location = 0) out vec3 color;
layout(location = 1) flat out float round;

void main() {
    vec2 pixel;
    float value;
    uint i = uint(gl_VertexIndex);
    placePosition(pointPosition(i), pixel);
    value = pointValue(i);
    gl_Position = vec4(pixel / vec2(pc.targetWidth, pc.targetHeight) * 2.0 - 1.0, 0.0, 1.0);
    gl_PointSize = pc.pointSize;
    round = pc.pointSize > 2.5 ? 1.0 : 0.0;
    color = pointColour(value);
}
