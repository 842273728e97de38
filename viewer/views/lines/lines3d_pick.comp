#version 450
#extension GL_GOOGLE_include_directive : require

// 3D lines picked (lines_pick.glsl); lines3d.vert draws them.
#define ESTUARY_POINTS_3D
#include "lines_pick.glsl"
