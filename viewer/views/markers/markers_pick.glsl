// Picking markers and glyphs (markers_pick.comp, markers3d_pick.comp, glyphs_pick.comp,
// glyphs3d_pick.comp; pick.glsl runs the passes): a marker placed and turned as it is drawn
// (markers_place.glsl) covers the point where its shape does (markers_shape.glsl; outlined, the
// outline); a marker of alpha 0 is not drawn. Markers are drawn in buffer order, in 3D too (no
// depth test), so among those covering the point the last is on top: depth stays 0. Its value
// and position are the buffer's (glyphs: the speed, and the cell sampled).
#include "markers_place.glsl"
#include "markers_shape.glsl"
#include "pick.glsl"

uint pickCount() {
    return floatBitsToUint(pc.pointCountBits);
}

bool pickElement(uint index, vec2 cursor, out PickHit hit) {
    PlacedMarker m = placeMarker(index);
    hit = PickHit(0.0, 0.0, index, 0.0, vec3(0.0));
    if (!m.drawn || m.colour.a <= 0.0 || any(isnan(m.centre)) || any(isinf(m.centre))) return false;
    vec2 offset = cursor - m.centre;
    vec2 local = vec2(dot(offset, m.axis), dot(offset, vec2(-m.axis.y, m.axis.x)));
    float d = shapeDistance(int(pc.markerShape + 0.5), local, m.halfSize);
    if ((floatBitsToUint(pc.markerFlagBits) & ESTUARY_MARKER_FLAG_OUTLINE) != 0u)
        d = abs(d) - 0.5 * pc.lineWidth;
    Marker marker = fetchMarker(index);
    hit.distance = max(d, 0.0);
    hit.value = marker.positionValue.w;
#ifdef ESTUARY_POINTS_3D
    hit.position = marker.positionValue.xyz;
#else
    hit.position = vec3(marker.positionValue.xy, 0.0);
#endif
    return true;
}
