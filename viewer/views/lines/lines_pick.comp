#version 450
#extension GL_GOOGLE_include_directive : require

// 2D lines picked (lines_pick.glsl); lines.vert draws them.
#include "lines_pick.glsl"
