#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

// 3D points splatted by a compute pass with one 64-bit atomic a pixel (points_splat.glsl).
#define ESTUARY_POINTS_3D
#define ESTUARY_SPLAT_PACKED
#include "points_splat.glsl"
