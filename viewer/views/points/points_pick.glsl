// Picking points (points_pick.comp, points3d_pick.comp; pick.glsl runs the passes): a point placed
// as it is drawn (points_place.glsl) covers the pixels of its square, of its disc once wider than
// 2.5 pixels (points.frag); drawn in buffer order, in 3D too, so depth stays 0. Its value is the
// one its colour comes from (pointValue), its position its position channel's.
#include "shared_layout.h"

#include "attributes.glsl"
layout(binding = ESTUARY_BINDING_COLORMAP) uniform sampler2D colormaps;

#ifdef ESTUARY_POINTS_3D
layout(push_constant) uniform Push{ESTUARY_POINT3D_PUSH_CONSTANTS} pc;
#else
layout(push_constant) uniform Push{ESTUARY_POINT_PUSH_CONSTANTS} pc;
#endif

#include "points_place.glsl"
#include "pick.glsl"

uint pickCount() {
    return floatBitsToUint(pc.pointCountBits);
}

bool pickElement(uint index, vec2 cursor, out PickHit hit) {
    hit = PickHit(0.0, 0.0, index, 0.0, vec3(0.0));
    vec3 position = pointPosition(index);
    vec2 pixel;
    hit.value = pointValue(index);
    if (!placePosition(position, pixel) || any(isnan(pixel)) || any(isinf(pixel))) return false;
    vec2 offset = abs(cursor - pixel);
    float halfSize = 0.5 * pc.pointSize;
    float d = pc.pointSize > 2.5 ? length(offset) - halfSize : length(max(offset - halfSize, 0.0));
    hit.distance = max(d, 0.0);
    hit.position = position;
    return true;
}
