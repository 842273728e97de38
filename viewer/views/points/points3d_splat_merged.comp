#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require

// 3D points splatted with one 64-bit atomic a run of subgroup neighbours on one pixel
// (points_splat.glsl, ESTUARY_SPLAT_MERGED).
#define ESTUARY_POINTS_3D
#define ESTUARY_SPLAT_MERGED
#include "points_splat.glsl"
