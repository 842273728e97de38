#version 450
#extension GL_GOOGLE_include_directive : require

// 3D vector glyphs splatted by a compute pass (markers_splat.glsl); glyphs3d.vert is their raster
// twin.
#define ESTUARY_GLYPHS
#define ESTUARY_POINTS_3D
#include "markers_splat.glsl"
