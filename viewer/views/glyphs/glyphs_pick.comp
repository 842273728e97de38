#version 450
#extension GL_GOOGLE_include_directive : require

// Vector glyphs picked (markers_pick.glsl); glyphs.vert draws them.
#define ESTUARY_GLYPHS
#include "markers_pick.glsl"
