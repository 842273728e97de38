#version 460
// The labels in 3D (labels_vertex.glsl): anchors in the view's box under the orbit camera.
#define ESTUARY_POINTS_3D
#include "shared_layout.h"

layout(push_constant) uniform Push {
    ESTUARY_LABELS3D_PUSH_CONSTANTS
} pc;

#include "labels_vertex.glsl"
