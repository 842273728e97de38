// The annotation quads as renderer/text.h writes them (TextQuad, std430, 80 bytes), read by
// text.vert and text_tiles.comp: a parallelogram from its origin along two axes in the picture's
// pixels, its local coordinates at the origin (local.xy) and at origin + axisU + axisV (local.zw),
// its colour and kind (params.x: ESTUARY_TEXT_*, then the kind's own numbers). extra.y: the
// compute path's clip rectangle (an index, as float bits).
#ifndef ESTUARY_TEXT_QUAD_GLSL
#define ESTUARY_TEXT_QUAD_GLSL

struct TextQuad {
    vec2 origin;
    vec2 axisU;
    vec2 axisV;
    vec2 extra;
    vec4 local;
    vec4 colour;
    vec4 params;
};
layout(std430, binding = ESTUARY_BINDING_TEXT_QUADS) readonly buffer Quads {
    TextQuad quads[];
};

#endif
