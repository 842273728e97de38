#version 450
#extension GL_GOOGLE_include_directive : require

// Vector glyphs of a 2D velocity image: markers sampled from it on a grid (markers_vertex.glsl).
#define ESTUARY_GLYPHS
#include "markers_vertex.glsl"
