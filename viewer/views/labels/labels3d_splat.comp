#version 460
// The labels' compute path in 3D (labels_splat.glsl).
#define ESTUARY_POINTS_3D
#include "shared_layout.h"

layout(push_constant) uniform Push {
    ESTUARY_LABELS3D_PUSH_CONSTANTS
} pc;

#include "labels_splat.glsl"
