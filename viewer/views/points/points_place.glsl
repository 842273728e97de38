// Where a point lands and what colour it adds: shared by the raster path (points.vert,
// points3d.vert) and the compute splat (points_splat.glsl), so both draw the same picture. The
// includer declares `pc` (ESTUARY_POINT_PUSH_CONSTANTS, or ESTUARY_POINT3D_PUSH_CONSTANTS with
// ESTUARY_POINTS_3D defined; or ESTUARY_MESH_PUSH_CONSTANTS with both ESTUARY_POINTS_3D and
// ESTUARY_MESH) and `colormaps`; with ESTUARY_PLACE_ONLY (the labels, labels.vert) only the
// placement is compiled, and `colormaps` is not needed.

#ifndef ESTUARY_PLACE_ONLY
#include "colormap.glsl"
#endif

// Where `position` lands in window coordinates (pixels, y down, the viewport covering the target;
// 2D reads x and y); false when it is not drawn (3D: at or behind the eye).
bool placePosition(vec3 position, out vec2 pixel) {
    vec2 targetSize = vec2(pc.targetWidth, pc.targetHeight);
#ifdef ESTUARY_POINTS_3D
    // The ray through NDC (x, y) is eye + t (forward + x right - y up), as the volume's
    // (volume_march.glsl: row 0 at the top, +NDC y down, against `up`), so a point's NDC is its
    // offset from the eye along right and against up, over t.
    vec3 p = (position - vec3(pc.centreX, pc.centreY, pc.centreZ)) * pc.invScale;
    vec3 d = p - vec3(pc.eyeX, pc.eyeY, pc.eyeZ);
    vec3 right = vec3(pc.rightX, pc.rightY, pc.rightZ);
    vec3 up = vec3(pc.upX, pc.upY, pc.upZ);
    float t = dot(d, vec3(pc.forwardX, pc.forwardY, pc.forwardZ));
    if (t <= 1e-4) {
        pixel = vec2(-1.0);
        return false;
    }
    vec2 ndc = vec2(dot(d, right) / dot(right, right), -dot(d, up) / dot(up, up)) / t;
    pixel = (ndc + 1.0) * 0.5 * targetSize;
#else
    // The inverse of field_common.glsl's fieldUv: the field's letterboxed view mapping.
    vec2 fieldSize = vec2(pc.fieldWidth, pc.fieldHeight);
    float pixelsPerTexel = min(targetSize.x / fieldSize.x, targetSize.y / fieldSize.y) * pc.zoom;
    vec2 uv = position.xy * vec2(pc.uvScaleX, pc.uvScaleY) + vec2(pc.uvOffsetX, pc.uvOffsetY);
    pixel = (uv - 0.5 - vec2(pc.panX, pc.panY)) * fieldSize * pixelsPerTexel + 0.5 * targetSize;
#endif
    return true;
}

// The point's centre (as placePosition) and the value its colour comes from: 3D (x, y, z, s) s, 2D
// (x, y, vx, vy) the speed |(vx, vy)|.
bool placePoint(vec4 point, out vec2 pixel, out float value) {
#ifdef ESTUARY_POINTS_3D
    value = point.w;
    return placePosition(point.xyz, pixel);
#else
    value = length(point.zw);
    return placePosition(vec3(point.xy, 0.0), pixel);
#endif
}

#ifdef ESTUARY_ATTRIBUTES
// Point i's position (2D: z 0) and the value its colour comes from: its value channel, else the
// length of its direction (the velocity; 2D: of its x and y), else 0.
vec3 pointPosition(uint i) {
    vec3 position = fetchVector(ESTUARY_CH_POSITION, i).xyz;
#ifndef ESTUARY_POINTS_3D
    position.z = 0.0;
#endif
    return position;
}

float pointValue(uint i) {
    if (attributeRead(ESTUARY_CH_VALUE)) return fetchScalar(ESTUARY_CH_VALUE, i);
    vec3 direction = fetchVector(ESTUARY_CH_DIRECTION, i).xyz;
#ifndef ESTUARY_POINTS_3D
    direction.z = 0.0;
#endif
    return length(direction);
}
#endif

#ifdef ESTUARY_POINTS_3D
// How far `position` lies from the eye along the view (in the camera's frame, the box's largest
// side 1): what orders 3D elements for picking (pick.glsl).
float viewDistance(vec3 position) {
    vec3 p = (position - vec3(pc.centreX, pc.centreY, pc.centreZ)) * pc.invScale;
    return dot(p - vec3(pc.eyeX, pc.eyeY, pc.eyeZ), vec3(pc.forwardX, pc.forwardY, pc.forwardZ));
}
#endif

#ifndef ESTUARY_PLACE_ONLY
// `value` through the colormap over [valueMin, valueMax] (clamped).
vec3 colormapColour(float value) {
    return colormapLookup(colormaps, value, pc.valueMin, pc.valueMax, pc.colormapIndex,
                          pc.colormapCount);
}

#ifndef ESTUARY_MESH // meshes (mesh.vert) add no intensity
// The colour one point adds: `value` through the colormap, times the intensity of one point.
vec3 pointColour(float value) {
    return colormapColour(value) * pc.intensity;
}
#endif
#endif
