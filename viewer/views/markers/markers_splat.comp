#version 450
#extension GL_GOOGLE_include_directive : require

// 2D markers splatted by a compute pass (markers_splat.glsl); markers.vert is their raster twin.
#include "markers_splat.glsl"
