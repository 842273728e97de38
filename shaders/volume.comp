#version 450
#extension GL_GOOGLE_include_directive : require

// The ray-marched volume drawn by a compute shader into a storage image (the renderer copies it to
// the target): the same march as volume.frag, one invocation per pixel in 8 x 8 tiles.
#include "volume_common.glsl"
#include "volume_march.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = ESTUARY_BINDING_VOLUME_TARGET, rgba8) uniform writeonly image2D target;

void main() {
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
    if (pixel.x >= int(pc.targetWidth) || pixel.y >= int(pc.targetHeight)) return;
    imageStore(target, pixel, vec4(marchVolume(vec2(pixel) + 0.5), 1.0));
}
