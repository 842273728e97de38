#version 450
#extension GL_GOOGLE_include_directive : require

// A mesh's pixel: its colour lit by the one light (ambient plus Lambert), the side of the surface
// facing the viewer lit (both sides are), and with the wireframe the edges' colour blended over
// it by coverage: a pixel-wide antialiased band wireWidth wide along each edge.
#include "shared_layout.h"

layout(push_constant) uniform Push { ESTUARY_MESH_PUSH_CONSTANTS } pc;

layout(location = 0) in vec4 color;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec3 toEye;
layout(location = 3) noperspective in vec3 corner;
layout(location = 4) flat in vec3 light;
layout(location = 0) out vec4 outColor;

void main() {
    // The triangle's own normal from how the position changes across the picture (toEye is the
    // position's negative): for flat shading without one from the vertices. Taken before any
    // branch, as derivatives must be.
    vec3 across = cross(dFdx(toEye), dFdy(toEye));
    vec3 view = normalize(toEye);
    vec3 chosen = dot(normal, normal) > 0.0 ? normal : across;
    float length_ = length(chosen);
    vec3 n = length_ > 0.0 ? chosen / length_ : view; // a degenerate triangle: facing the eye
    if (dot(n, view) < 0.0) n = -n;
    float lit = ESTUARY_MESH_AMBIENT + (1.0 - ESTUARY_MESH_AMBIENT) * max(dot(n, light), 0.0);
    vec3 shaded = color.rgb * lit;
    if ((floatBitsToUint(pc.meshFlagBits) & ESTUARY_MESH_FLAG_WIREFRAME) != 0u) {
        // Pixels to each edge: the opposite corner's weight over how fast it changes per pixel.
        vec3 pixels = corner / max(fwidth(corner), vec3(1e-6));
        float edge = min(min(pixels.x, pixels.y), pixels.z);
        float coverage = clamp(0.5 * pc.wireWidth + 0.5 - edge, 0.0, 1.0);
        shaded = mix(shaded, vec3(pc.wireR, pc.wireG, pc.wireB), coverage * pc.wireA);
    }
    outColor = vec4(shaded, 1.0);
}
