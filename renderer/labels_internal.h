// What the labels renderer's raster path (labels.cpp) and compute path (labels_compute.cpp)
// share.
#pragma once

#include "labels.h"

namespace estuary {

// The compute path's members of the push block (shared_layout.h, ESTUARY_LABEL_MEMBERS).
struct LabelsComputeMembers {
    float areaX = 0.0f, areaY = 0.0f, pictureWidth = 0.0f, pictureHeight = 0.0f;
};

// RGBA8 of a colour clamped to 0..1 (unpackUnorm4x8's order).
uint32_t packLabelColour(const Rgba& colour);
// The labels' push block (2D or 3D as the renderer's) for `count` anchors placed in a picture of
// `extent` (the area's size).
void pushLabels(const LabelsRenderer& renderer, VkCommandBuffer cmd, VkPipelineLayout layout,
                VkShaderStageFlags stages, VkExtent2D extent, const LabelsDraw& draw,
                uint32_t count, const LabelsComputeMembers& compute);
// LabelsDesc::compute: the compute path's layout and pipelines; freed (where made) by the other.
void createLabelsCompute(const Device& device, LabelsRenderer& renderer,
                         const std::filesystem::path& dataDir);
void destroyLabelsCompute(const Device& device, LabelsRenderer& renderer);

} // namespace estuary
