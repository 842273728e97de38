#version 450
#extension GL_GOOGLE_include_directive : require

// Vector glyphs of a 3D velocity image: markers sampled from it on a grid, under the orbit camera
// (markers_vertex.glsl).
#define ESTUARY_GLYPHS
#define ESTUARY_POINTS_3D
#include "markers_vertex.glsl"
