// What every field fragment shader shares (included, not compiled on its own): the bindings and
// push constants of shared_layout.h, the letterboxed view mapping, the scalar a texel stands for
// under the shading mode, and the colormap lookup. A simulation's own shader includes this and
// changes only how the colour is made (see field_relief.frag).
// The same sources serve both consumers: glslc compiles them for Vulkan (VULKAN is defined), and
// the OpenGL consumer compiles them at run time (renderer/opengl/gl_field.cpp), defining
// ESTUARY_GL_SHADING; only the declarations below differ.
#extension GL_GOOGLE_include_directive : require

#include "shared_layout.h"
#include "colormap.glsl"

layout(binding = ESTUARY_BINDING_FIELD) uniform sampler2D field;
layout(binding = ESTUARY_BINDING_COLORMAP) uniform sampler2D colormaps;

#ifdef VULKAN
layout(push_constant) uniform Push { ESTUARY_FIELD_PUSH_CONSTANTS } pc;
layout(constant_id = ESTUARY_SPEC_SHADING) const int shading = ESTUARY_SHADING_COLORMAP;
#else
// Scalar floats only, so std140 packs them exactly as the C++ struct (FieldPushConstants).
layout(std140, binding = 0) uniform Push { ESTUARY_FIELD_PUSH_CONSTANTS } pc;
const int shading = ESTUARY_GL_SHADING;
// Vulkan's framebuffer origin: row 0 at the top, so the picture is the same in both APIs.
layout(origin_upper_left) in vec4 gl_FragCoord;
#endif

// Target pixels per field texel: the aspect-preserving fit at zoom 1, times the zoom.
float pixelsPerTexel() {
    vec2 targetSize = vec2(pc.targetWidth, pc.targetHeight);
    vec2 fieldSize = vec2(pc.fieldWidth, pc.fieldHeight);
    return min(targetSize.x / fieldSize.x, targetSize.y / fieldSize.y) * pc.zoom;
}

// The field's uv under the pixel centre `pixel`; the field point (0.5 + pan) sits at the target's
// centre.
vec2 fieldUv(vec2 pixel) {
    vec2 targetSize = vec2(pc.targetWidth, pc.targetHeight);
    vec2 fieldSize = vec2(pc.fieldWidth, pc.fieldHeight);
    return (pixel - 0.5 * targetSize) / (fieldSize * pixelsPerTexel()) + 0.5 +
           vec2(pc.panX, pc.panY);
}

// The field at `uv`, trilinear, at the mip level of one pixel's footprint plus the view's bias.
// The level is computed, not taken from implicit derivatives: the letterbox scales both axes
// alike, so the footprint is 1 / pixelsPerTexel texels everywhere, and the same expression works
// in fragment and compute shaders (draw_main.glsl), which then draw the same picture.
vec4 sampleField(vec2 uv) {
    return textureLod(field, uv, pc.mipBias - log2(pixelsPerTexel()));
}

bool insideField(vec2 uv) {
    return all(greaterThanEqual(uv, vec2(0.0))) && all(lessThanEqual(uv, vec2(1.0)));
}

// The scalar the colormap shows: channel 0, or the length of channels 0 and 1.
float fieldValue(vec4 texel) {
    return shading == ESTUARY_SHADING_COLORMAP_MAGNITUDE ? length(texel.rg) : texel.r;
}

// `value` through the colormap over [valueMin, valueMax]. Texel centres of the first and last
// entries map to the ends of the range, so the ends are exact.
vec3 colormapColor(float value) {
    return colormapLookup(colormaps, value, pc.valueMin, pc.valueMax, pc.colormapIndex,
                          pc.colormapCount);
}

vec4 background() {
    return vec4(pc.backgroundR, pc.backgroundG, pc.backgroundB, 1.0);
}
