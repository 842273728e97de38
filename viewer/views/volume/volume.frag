#version 450
#extension GL_GOOGLE_include_directive : require

// The ray-marched volume: one ray per pixel (volume_march.glsl), drawn by a fragment shader or by
// its compute twin (draw_main.glsl).
#include "volume_common.glsl"
#include "volume_march.glsl"

vec4 pixelColor(vec2 pixel) {
    return vec4(marchVolume(pixel), 1.0);
}

#include "draw_main.glsl"

