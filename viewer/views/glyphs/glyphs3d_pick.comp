#version 450
#extension GL_GOOGLE_include_directive : require

// 3D vector glyphs picked (markers_pick.glsl); glyphs3d.vert draws them.
#define ESTUARY_GLYPHS
#define ESTUARY_POINTS_3D
#include "markers_pick.glsl"
