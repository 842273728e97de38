#version 450
#extension GL_GOOGLE_include_directive : require

// 2D markers: positions (x, y) placed like 2D points (markers_vertex.glsl).
#include "markers_vertex.glsl"
