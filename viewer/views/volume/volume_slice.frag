#version 450
#extension GL_GOOGLE_include_directive : require

// One slice of a volume through the colormap, letterboxed and zoomed/panned like a 2D field:
// the plane normal to axis sliceAxis (0 = x, 1 = y, 2 = z) at slicePosition (0..1 across the
// volume). The slice shows the other two axes in order (x right, y down for z slices; x right,
// z down for y slices; z right, y down for x slices).
#include "volume_common.glsl"

vec4 pixelColor(vec2 pixel) {
    vec3 size = volumeSize();
    int axis = int(pc.sliceAxis + 0.5);
    vec2 sliceSize = axis == 0 ? size.zy : axis == 1 ? size.xz : size.xy;
    vec2 target = vec2(pc.targetWidth, pc.targetHeight);
    float pixelsPerTexel = min(target.x / sliceSize.x, target.y / sliceSize.y) * pc.zoom;
    vec2 uv = (pixel - 0.5 * target) / (sliceSize * pixelsPerTexel) + 0.5 +
              vec2(pc.panX, pc.panY);
    float w = clamp(pc.slicePosition, 0.0, 1.0);
    vec3 uvw = axis == 0 ? vec3(w, uv.y, uv.x) : axis == 1 ? vec3(uv.x, w, uv.y) : vec3(uv, w);
    // Level 0 near the slice plane: the mip chain averages across it, which a slice must not do.
    float v = textureLod(field, uvw, 0.0).r;
    bool inside = all(greaterThanEqual(uv, vec2(0.0))) && all(lessThanEqual(uv, vec2(1.0)));
    return vec4(inside ? colormapAt(normalizedValue(v)) : background(), 1.0);
}

#include "draw_main.glsl"

