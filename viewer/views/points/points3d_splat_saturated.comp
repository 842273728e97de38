#version 450
#extension GL_GOOGLE_include_directive : require

// 3D points splatted into one uint a pixel, each channel added saturating at 255
// (points_splat.glsl, ESTUARY_SPLAT_SATURATED).
#define ESTUARY_POINTS_3D
#define ESTUARY_SPLAT_SATURATED
#include "points_splat.glsl"
