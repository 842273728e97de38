#version 450
#extension GL_GOOGLE_include_directive : require

// 3D lines splatted by a compute pass (lines_splat.glsl); lines3d.vert is their raster twin.
#define ESTUARY_POINTS_3D
#include "lines_splat.glsl"
