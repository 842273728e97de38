#version 450
#extension GL_GOOGLE_include_directive : require

// 2D lines: ends (x, y) placed like 2D points (lines_vertex.glsl).
#include "lines_vertex.glsl"
