#version 450
#extension GL_GOOGLE_include_directive : require

// 3D markers: positions (x, y, z) under the orbit camera, placed like 3D points
// (markers_vertex.glsl).
#define ESTUARY_POINTS_3D
#include "markers_vertex.glsl"
