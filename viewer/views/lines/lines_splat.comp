#version 450
#extension GL_GOOGLE_include_directive : require

// 2D lines splatted by a compute pass (lines_splat.glsl); lines.vert is their raster twin.
#include "lines_splat.glsl"
