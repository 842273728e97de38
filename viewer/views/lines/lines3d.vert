#version 450
#extension GL_GOOGLE_include_directive : require

// 3D lines: ends (x, y, z) under the orbit camera, placed like 3D points (lines_vertex.glsl).
#define ESTUARY_POINTS_3D
#include "lines_vertex.glsl"
