#version 450
#extension GL_GOOGLE_include_directive : require

// 2D points picked (points_pick.glsl); points.vert draws them.
#include "points_pick.glsl"
