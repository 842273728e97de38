#version 450
#extension GL_GOOGLE_include_directive : require

// The compute splat's resolve (points_splat.glsl): a full-screen pass, blended ONE + ONE, adds
// each pixel's splatted colour (in 1/255 steps) onto the target; alpha stays as it was. The splat
// buffer holds three uints a pixel, or (specialization constant 0) one packed uint64 read here as
// two uints, low word first.
#include "shared_layout.h"

layout(std430, binding = ESTUARY_BINDING_SPLAT) readonly buffer Splat {
    uint splat[];
};
// The first member of both point blocks (ESTUARY_POINT_PUSH_CONSTANTS, ..._POINT3D_...).
layout(push_constant) uniform Push {
    float targetWidth;
} pc;

layout(constant_id = 0) const bool kPacked = false;

layout(location = 0) out vec4 outColor;

void main() {
    uvec2 pixel = uvec2(gl_FragCoord.xy);
    uint index = pixel.y * uint(pc.targetWidth) + pixel.x;
    uvec3 sum;
    if (kPacked) {
        uint low = splat[2u * index], high = splat[2u * index + 1u];
        sum = uvec3(low & 0x1FFFFFu, (low >> 21) | ((high & 0x3FFu) << 11), high >> 10);
    } else {
        sum = uvec3(splat[3u * index], splat[3u * index + 1u], splat[3u * index + 2u]);
    }
    outColor = vec4(vec3(sum) / 255.0, 0.0);
}
