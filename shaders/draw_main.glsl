// The entry point every picture shader shares. A picture shader defines
// `vec4 pixelColor(vec2 pixel)` (pixel: the pixel centre in target pixels, row 0 at the top) and
// includes this file last. Compiled as a fragment shader, main colours the fragment. CMake compiles
// every .frag that includes this file a second time as a compute shader with ESTUARY_COMPUTE_DRAW
// (shaders/<name>.frag.compute.spv): main then writes one pixel per invocation into the renderer's
// RGBA8 storage image, in 8 x 8 tiles, which the renderer copies into the target. On the H100 the
// compute twin draws the same picture several times faster (docs/PERFORMANCE.md).
#ifdef ESTUARY_COMPUTE_DRAW
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = ESTUARY_BINDING_DRAW_TARGET, rgba8) uniform writeonly image2D drawTarget;

void main() {
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
    if (pixel.x >= int(pc.targetWidth) || pixel.y >= int(pc.targetHeight)) return;
    imageStore(drawTarget, pixel, pixelColor(vec2(pixel) + 0.5));
}
#else
layout(location = 0) out vec4 outColor;

void main() {
    outColor = pixelColor(gl_FragCoord.xy);
}
#endif
