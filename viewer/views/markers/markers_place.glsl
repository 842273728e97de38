// Where a marker lands and how it looks, shared by the raster path (markers_vertex.glsl) and the
// compute splat (markers_splat.glsl), so both draw the same picture: marker (or glyph) `index`,
// pulled from its channels (attributes.glsl; by default 32 bytes each: vec4 (x, y, z, value) and
// vec4 (dx, dy, dz, size)) or sampled from the velocity image, becomes a centre in pixels, the unit axis its
// local +x runs along on the screen (the direction's image; none: the screen's +x), a half size
// in pixels, how far its pixels reach from the centre (a pixel beyond the shape, so that its edge
// is antialiased, and the outline's width) and its colour. Placement is the points' own
// (points_place.glsl), so a marker sits where a point at its position would.
#include "shared_layout.h"

struct Marker {
    vec4 positionValue;
    vec4 directionSize;
};
#ifdef ESTUARY_GLYPHS
// Glyphs: marker i samples the velocity image (channels 0 and 1; in 3D 0, 1 and 2) at the centre
// cell of the i-th square (cube) of glyphSpacing cells (row by row, then slice by slice); its value
// is the speed, its direction the velocity over valueMax (so an arrow's length follows the speed),
// its place that cell (in 3D its centre, in the box of the image's cells the renderer frames).
#ifdef ESTUARY_POINTS_3D
layout(binding = ESTUARY_BINDING_FIELD) uniform sampler3D velocity;
#else
layout(binding = ESTUARY_BINDING_FIELD) uniform sampler2D velocity;
#endif
#else
#include "attributes.glsl"
#endif
layout(binding = ESTUARY_BINDING_COLORMAP) uniform sampler2D colormaps;

#ifdef ESTUARY_POINTS_3D
layout(push_constant) uniform Push { ESTUARY_MARKER3D_PUSH_CONSTANTS } pc;
#else
layout(push_constant) uniform Push { ESTUARY_MARKER_PUSH_CONSTANTS } pc;
#endif

#include "points_place.glsl"

// Where a position lands (pixels), or false behind the eye.
bool project(vec3 position, out vec2 pixel) {
    return placePosition(position, pixel);
}

Marker fetchMarker(uint index) {
#if defined(ESTUARY_GLYPHS) && defined(ESTUARY_POINTS_3D)
    ivec3 size = textureSize(velocity, 0);
    int spacing = max(int(pc.glyphSpacing + 0.5), 1);
    ivec3 squares = (size + spacing - 1) / spacing;
    int i = int(index);
    ivec3 cube = ivec3(i % squares.x, (i / squares.x) % squares.y, i / (squares.x * squares.y));
    ivec3 cell = min(cube * spacing + spacing / 2, size - 1);
    vec3 v = texelFetch(velocity, cell, 0).xyz;
    float scale = pc.valueMax > 0.0 ? 1.0 / pc.valueMax : 1.0;
    return Marker(vec4(vec3(cell) + 0.5, length(v)), vec4(v * scale, 0.0));
#elif defined(ESTUARY_GLYPHS)
    ivec2 size = textureSize(velocity, 0);
    int spacing = max(int(pc.glyphSpacing + 0.5), 1);
    int columns = (size.x + spacing - 1) / spacing;
    ivec2 square = ivec2(int(index) % columns, int(index) / columns);
    ivec2 cell = min(square * spacing + spacing / 2, size - 1);
    vec2 v = texelFetch(velocity, cell, 0).xy;
    float scale = pc.valueMax > 0.0 ? 1.0 / pc.valueMax : 1.0;
    return Marker(vec4(vec2(cell), 0.0, length(v)), vec4(v * scale, 0.0, 0.0));
#else
    return Marker(vec4(fetchVector(ESTUARY_CH_POSITION, index).xyz,
                       fetchScalar(ESTUARY_CH_VALUE, index)),
                  vec4(fetchVector(ESTUARY_CH_DIRECTION, index).xyz,
                       fetchScalar(ESTUARY_CH_SIZE, index)));
#endif
}

struct PlacedMarker {
    vec2 centre, axis;
    float halfSize, reach;
    vec4 colour;
    bool drawn; // in front of the eye, of a size above 0
};

PlacedMarker placeMarker(uint index) {
    Marker m = fetchMarker(index);
    uint flags = floatBitsToUint(pc.markerFlagBits);
    vec3 position = m.positionValue.xyz;
    vec3 direction = m.directionSize.xyz;
#ifndef ESTUARY_POINTS_3D
    position.z = 0.0;
    direction.z = 0.0;
#endif
    PlacedMarker placed;
    vec2 centre;
    bool visible = project(position, centre);
    // The size: the view's, times the marker's own where it gives one, times |direction| when
    // asked; in pixels, or in position units measured on the screen at the marker.
    float size = pc.pointSize * (m.directionSize.w > 0.0 ? m.directionSize.w : 1.0);
    float length3 = length(direction);
    if ((flags & ESTUARY_MARKER_FLAG_SCALE_BY_LENGTH) != 0u) size *= length3;
    if ((flags & ESTUARY_MARKER_FLAG_WORLD_SIZE) != 0u) {
#ifdef ESTUARY_POINTS_3D
        vec3 across = normalize(vec3(pc.rightX, pc.rightY, pc.rightZ));
#else
        vec3 across = vec3(1.0, 0.0, 0.0);
#endif
        vec2 beside;
        visible = visible && project(position + across * size, beside);
        size = distance(beside, centre);
    }
    // The direction's image on the screen: the difference of two projections a small step apart.
    vec2 axis = vec2(1.0, 0.0);
    if (length3 > 0.0) {
        vec2 ahead;
        float step = 1e-3 / max(length3, 1e-30);
#ifdef ESTUARY_POINTS_3D
        step /= pc.invScale;
#endif
        if (project(position + direction * step, ahead) && distance(ahead, centre) > 0.0)
            axis = normalize(ahead - centre);
    }
    placed.centre = centre;
    placed.axis = axis;
    placed.halfSize = 0.5 * size;
    placed.reach = placed.halfSize + 1.5 +
                   ((flags & ESTUARY_MARKER_FLAG_OUTLINE) != 0u ? pc.lineWidth : 0.0);
    placed.drawn = visible && size > 0.0;
    placed.colour = (flags & ESTUARY_MARKER_FLAG_RGBA) != 0u
                        ? unpackUnorm4x8(floatBitsToUint(m.positionValue.w))
                        : vec4(colormapColour(m.positionValue.w), 1.0);
    return placed;
}
