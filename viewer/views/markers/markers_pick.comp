#version 450
#extension GL_GOOGLE_include_directive : require

// 2D markers picked (markers_pick.glsl); markers.vert draws them.
#include "markers_pick.glsl"
