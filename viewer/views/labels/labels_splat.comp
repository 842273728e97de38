#version 460
// The labels' compute path in 2D (labels_splat.glsl).
#include "shared_layout.h"

layout(push_constant) uniform Push {
    ESTUARY_LABELS_PUSH_CONSTANTS
} pc;

#include "labels_splat.glsl"
