#version 450
#extension GL_GOOGLE_include_directive : require

// 3D markers splatted by a compute pass (markers_splat.glsl); markers3d.vert is their raster twin.
#define ESTUARY_POINTS_3D
#include "markers_splat.glsl"
