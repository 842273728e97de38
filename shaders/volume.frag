#version 450
#extension GL_GOOGLE_include_directive : require

// The ray-marched volume drawn by a fragment shader: one ray per fragment (volume_march.glsl).
#include "volume_common.glsl"
#include "volume_march.glsl"

layout(location = 0) out vec4 outColor;

void main() {
    outColor = vec4(marchVolume(gl_FragCoord.xy), 1.0);
}
