#version 450
#extension GL_GOOGLE_include_directive : require

// A scalar field as a lit relief: the colormap colour, shaded by the field's slope as if it were
// a height map lit from the upper left. Flat regions keep exactly the colormap colour, so this
// picture differs from field.frag only where the field changes.
#include "field_common.glsl"

vec4 pixelColor(vec2 pixel) {
    vec2 uv = fieldUv(pixel);
    if (!insideField(uv)) return background();
    vec4 texel = sampleField(uv);
    float value = fieldValue(texel);
    // Slope per texel by central differences one step apart each way: a texel when magnified,
    // a screen pixel when minified (what the sampler's level shows). Smoother than the 2x2-quad
    // dFdx/dFdy.
    vec2 fieldSize = vec2(pc.fieldWidth, pc.fieldHeight);
    float stepTexels = max(1.0, 1.0 / pixelsPerTexel());
    vec2 du = vec2(stepTexels / fieldSize.x, 0.0), dv = vec2(0.0, stepTexels / fieldSize.y);
    float range = max(abs(pc.valueMax - pc.valueMin), 1e-6);
    vec2 slope = vec2(fieldValue(sampleField(uv + du)) -
                          fieldValue(sampleField(uv - du)),
                      fieldValue(sampleField(uv + dv)) -
                          fieldValue(sampleField(uv - dv))) /
                 (2.0 * stepTexels * range);
    vec3 normal = normalize(vec3(-4.0 * slope, 1.0));
    const vec3 light = normalize(vec3(-1.0, -1.0, 1.5));
    // 1 on flat ground (normal = +z), brighter on slopes facing the light, darker away from it.
    float shade = clamp(1.0 + 1.2 * (dot(normal, light) - light.z), 0.25, 1.6);
    vec3 color = clamp(colormapColor(value) * shade, 0.0, 1.0);
    return vec4(color, 1.0);
}

#include "draw_main.glsl"

