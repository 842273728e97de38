#version 450
#extension GL_GOOGLE_include_directive : require

// 3D markers picked (markers_pick.glsl); markers3d.vert draws them.
#define ESTUARY_POINTS_3D
#include "markers_pick.glsl"
