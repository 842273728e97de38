#version 450
#extension GL_GOOGLE_include_directive : require

// A particle's point: its colour, added to what is below (the pipeline blends ONE + ONE); round
// once points are wider than a pixel or two.
#include "shared_layout.h"

layout(push_constant) uniform Push { ESTUARY_POINT_PUSH_CONSTANTS } pc;

layout(location = 0) in vec3 color;
layout(location = 0) out vec4 outColor;

void main() {
    vec2 fromCentre = gl_PointCoord - 0.5;
    if (pc.pointSize > 2.5 && dot(fromCentre, fromCentre) > 0.25) discard;
    outColor = vec4(color, 1.0);
}
