#version 450
#extension GL_GOOGLE_include_directive : require

// 3D points splatted by a compute pass (points_splat.glsl); points3d.vert is their raster twin.
#define ESTUARY_POINTS_3D
#include "points_splat.glsl"
