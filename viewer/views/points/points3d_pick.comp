#version 450
#extension GL_GOOGLE_include_directive : require

// 3D points picked (points_pick.glsl); points3d.vert draws them.
#define ESTUARY_POINTS_3D
#include "points_pick.glsl"
