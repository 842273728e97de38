#version 450
#extension GL_GOOGLE_include_directive : require

// 2D points splatted by a compute pass (points_splat.glsl); points.vert is their raster twin.
#include "points_splat.glsl"
