#version 460
// The labels in 2D (labels_vertex.glsl): anchors placed in the cells of the field below or in the
// view's bounds.
#include "shared_layout.h"

layout(push_constant) uniform Push {
    ESTUARY_LABELS_PUSH_CONSTANTS
} pc;

#include "labels_vertex.glsl"
