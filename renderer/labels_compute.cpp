// The labels renderer's compute path (labels.h, recordLabelsCompute): a coverage pass per glyph
// slot (viewer/views/labels/labels_splat.glsl) and a resolve over the area (labels_resolve.comp).
#include "labels_internal.h"
#include "renderer_internal.h"
#include "shared_layout.h"
#include "vk_check.h"

#include <algorithm>
#include <bit>

namespace estuary {

void createLabelsCompute(const Device& device, LabelsRenderer& r,
                         const std::filesystem::path& dataDir) {
    r.computeLayout =
        createPushLayout(device, r.setLayout, VK_SHADER_STAGE_COMPUTE_BIT, "labels compute layout");
    const VkSpecializationInfo channels = r.specialization.info();
    r.splatPipeline = createComputePipeline(
        device, &r.kit->pipelineCache, r.computeLayout,
        shaderPath(dataDir, r.threeD ? "labels3d_splat.comp" : "labels_splat.comp"), &channels,
        r.threeD ? "3D labels coverage" : "labels coverage");
    r.resolvePipeline = createComputePipeline(device, &r.kit->pipelineCache, r.computeLayout,
                                              shaderPath(dataDir, "labels_resolve.comp"), nullptr,
                                              "labels resolve");
    const size_t slots = r.slotSets.size();
    r.coverage.resize(slots);
    r.coverageExtents.assign(slots, VkExtent2D{0, 0});
    r.computeTargets.assign(slots, VK_NULL_HANDLE);
}

void destroyLabelsCompute(const Device& device, LabelsRenderer& r) {
    vkDestroyPipeline(device.handle, r.splatPipeline, nullptr);
    vkDestroyPipeline(device.handle, r.resolvePipeline, nullptr);
    vkDestroyPipelineLayout(device.handle, r.computeLayout, nullptr);
    for (GpuBuffer& b : r.coverage)
        destroyBuffer(device, b);
    r.splatPipeline = r.resolvePipeline = VK_NULL_HANDLE;
    r.computeLayout = VK_NULL_HANDLE;
    r.coverage.clear();
}

namespace {

// The slot's coverage buffer for a picture of `picture`, made (again, zeroed) where it is not;
// the slot's set names it and `target`.
void prepareSlot(const Device& device, LabelsRenderer& r, VkCommandBuffer cmd, uint32_t slot,
                 VkExtent2D picture, VkImageView target) {
    const VkExtent2D had = r.coverageExtents[slot];
    if (!r.coverage[slot].handle || had.width != picture.width || had.height != picture.height) {
        destroyBuffer(device, r.coverage[slot]);
        const VkDeviceSize bytes = VkDeviceSize(picture.width) * picture.height * sizeof(uint32_t);
        r.coverage[slot] = createBuffer(
            device, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
            VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "label coverage");
        r.coverageExtents[slot] = picture;
        writeBufferDescriptor(device, r.slotSets[slot], ESTUARY_BINDING_LABEL_COVERAGE,
                              r.coverage[slot].handle, bytes);
        // Zero once; every resolve leaves it zero again.
        vkCmdFillBuffer(cmd, r.coverage[slot].handle, 0, VK_WHOLE_SIZE, 0);
        recordMemoryBarrier(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                            VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                            VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
                                VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    }
    if (r.computeTargets[slot] != target) {
        writeImageDescriptor(device, r.slotSets[slot], ESTUARY_BINDING_DRAW_TARGET,
                             VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                             {VK_NULL_HANDLE, target, VK_IMAGE_LAYOUT_GENERAL});
        r.computeTargets[slot] = target;
    }
}

} // namespace

void recordLabelsCompute(const Device& device, LabelsRenderer& r, VkCommandBuffer cmd,
                         uint32_t slot, VkRect2D area, VkImageView target, VkExtent2D picture,
                         const LabelsDraw& draw) {
    if (!r.splatPipeline)
        throw runtimeError("recordLabelsCompute: the labels renderer was made without "
                           "LabelsDesc::compute");
    if (slot >= r.slotSets.size())
        throw runtimeError("recordLabelsCompute: slot " + std::to_string(slot) + " out of " +
                           std::to_string(r.slotSets.size()));
    const uint32_t capacity = attributeCapacity(
        r.channels, channelBuffers(r.channels, r.mainBuffers[slot], r.ownBuffers[slot]));
    const uint32_t count = std::min(draw.count, capacity);
    const VkRect2D scissor = clipRect(picture, area, {0, 0, 0, 0});
    if (count == 0 || r.maxGlyphs == 0 || !(draw.sizePixels > 0.0f) || scissor.extent.width == 0 ||
        scissor.extent.height == 0)
        return;
    prepareSlot(device, r, cmd, slot, picture, target);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r.computeLayout, 0, 1,
                            &r.slotSets[slot], 0, nullptr);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r.splatPipeline);
    LabelsComputeMembers members;
    members.areaX = float(area.offset.x), members.areaY = float(area.offset.y);
    members.pictureWidth = float(picture.width), members.pictureHeight = float(picture.height);
    pushLabels(r, cmd, r.computeLayout, VK_SHADER_STAGE_COMPUTE_BIT, area.extent, draw, count,
               members);
    // A workgroup per glyph slot, grid-stride past the dispatch limit.
    const uint64_t slots = uint64_t(count) * r.maxGlyphs;
    vkCmdDispatch(cmd, uint32_t(std::min<uint64_t>(slots, 65535)), 1, 1);
    recordMemoryBarrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r.resolvePipeline);
    const LabelsResolvePushConstants resolve{
        float(scissor.offset.x),     float(scissor.offset.y),
        float(scissor.extent.width), float(scissor.extent.height),
        float(picture.width),        std::bit_cast<float>(packLabelColour(draw.color))};
    vkCmdPushConstants(cmd, r.computeLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(resolve),
                       &resolve);
    vkCmdDispatch(cmd, (scissor.extent.width + 7) / 8, (scissor.extent.height + 7) / 8, 1);
}

} // namespace estuary
