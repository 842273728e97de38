#version 450
#extension GL_GOOGLE_include_directive : require

// One marker's pixel: its colour times the share of the pixel its shape covers
// (markers_shape.glsl), blended over the picture (SRC_ALPHA, ONE_MINUS_SRC_ALPHA).
#include "markers_shape.glsl"

layout(location = 0) in vec4 color;
layout(location = 1) in vec2 local;
layout(location = 2) flat in float halfSize;
layout(location = 3) flat in uint shape;
layout(location = 4) flat in uint flags;
layout(location = 5) flat in float lineWidth;
layout(location = 0) out vec4 outColor;

void main() {
    float coverage = markerCoverage(int(shape), flags, local, halfSize, lineWidth);
    if (coverage <= 0.0) discard;
    outColor = vec4(color.rgb, color.a * coverage);
}
