#version 450
#extension GL_GOOGLE_include_directive : require

// Vector glyphs splatted by a compute pass (markers_splat.glsl); glyphs.vert is their raster twin.
#define ESTUARY_GLYPHS
#include "markers_splat.glsl"
