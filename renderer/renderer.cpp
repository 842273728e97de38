#include "renderer.h"
#include "renderer_internal.h"
#include "colormap.h"
#include "vk_check.h"
#include "shared_layout.h"
#include "volume_camera.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <tuple>

namespace estuary {

namespace {

void requireFormatSupport(const Device& device, VkFormat fieldFormat, VkFormat targetFormat) {
    VkFormatProperties field{};
    vkGetPhysicalDeviceFormatProperties(device.physical, fieldFormat, &field);
    if (!(field.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT))
        throw unsupported("field format " + std::to_string(fieldFormat) +
                          " lacks SAMPLED_IMAGE_FILTER_LINEAR (optimal tiling) on this device: the "
                          "field cannot be filtered trilinearly");
    VkFormatProperties target{};
    vkGetPhysicalDeviceFormatProperties(device.physical, targetFormat, &target);
    if (!(target.optimalTilingFeatures & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT))
        throw unsupported("target format " + std::to_string(targetFormat) +
                          " lacks COLOR_ATTACHMENT (optimal tiling) on this device");
}

} // namespace

VkSampler createLinearSampler(const Device& device, float maxLod, const char* name) {
    VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    info.magFilter = VK_FILTER_LINEAR;
    info.minFilter = VK_FILTER_LINEAR;
    info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR;
    info.addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    info.addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    info.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    info.maxLod = maxLod;
    VkSampler sampler = VK_NULL_HANDLE;
    VK_CHECK(vkCreateSampler(device.handle, &info, nullptr, &sampler));
    nameObject(device, VK_OBJECT_TYPE_SAMPLER, sampler, name);
    return sampler;
}

Kit& requireKit(Kit* kit, const char* what) {
    if (!kit) throw runtimeError(std::string(what) + ": the desc names no kit (kit.h)");
    return *kit;
}

namespace {

void createDescriptors(const Device& device, Renderer& renderer, uint32_t slotCount) {
    VkDescriptorSetLayoutBinding bindings[2]{};
    bindings[0].binding = ESTUARY_BINDING_FIELD;
    bindings[0].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    bindings[0].descriptorCount = 1;
    bindings[0].stageFlags = VK_SHADER_STAGE_FRAGMENT_BIT;
    bindings[1] = bindings[0];
    bindings[1].binding = ESTUARY_BINDING_COLORMAP;
    VkDescriptorSetLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    layoutInfo.bindingCount = 2;
    layoutInfo.pBindings = bindings;
    VK_CHECK(vkCreateDescriptorSetLayout(device.handle, &layoutInfo, nullptr, &renderer.setLayout));
    nameObject(device, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, renderer.setLayout,
               "field set layout");
    renderer.slotSets =
        allocateKitSets(device, *renderer.kit, renderer.setLayout, bindings, slotCount);

    // The colormap binding is the same in every slot; the field binding waits for setFieldImage.
    const VkDescriptorImageInfo colormap{renderer.kit->colormapSampler, renderer.kit->atlas.view,
                                         VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    for (uint32_t slot = 0; slot < slotCount; ++slot) {
        nameObject(device, VK_OBJECT_TYPE_DESCRIPTOR_SET, renderer.slotSets[slot],
                   "field set, slot " + std::to_string(slot));
        writeImageDescriptor(device, renderer.slotSets[slot], ESTUARY_BINDING_COLORMAP,
                             VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, colormap);
    }
}

} // namespace

Renderer createRenderer(const Device& device, const RendererDesc& desc) {
    if (desc.slotCount == 0) throw runtimeError("createRenderer: slotCount must be at least 1");
    requireFormatSupport(device, desc.fieldFormat, desc.targetFormat);
    Renderer renderer;
    renderer.kit = &requireKit(desc.kit, "createRenderer");
    renderer.targetFormat = desc.targetFormat;
    renderer.fieldFormat = desc.fieldFormat;
    renderer.fieldExtents.assign(desc.slotCount, VkExtent2D{0, 0});
    renderer.fieldDepths.assign(desc.slotCount, 1);
    renderer.volume = desc.volume;
    try {
        createDescriptors(device, renderer, desc.slotCount);
        createPipelines(device, renderer, desc);
        if (desc.compute) createComputeDraw(device, renderer, desc);
    } catch (...) {
        destroyRenderer(device, renderer);
        throw;
    }
    return renderer;
}

void destroyRenderer(const Device& device, Renderer& renderer) {
    vkDestroyPipeline(device.handle, renderer.computePipeline, nullptr);
    vkDestroyPipelineLayout(device.handle, renderer.computeLayout, nullptr);
    vkDestroyDescriptorSetLayout(device.handle, renderer.computeSetLayout, nullptr);
    destroyImage(device, renderer.computeTarget);
    vkDestroyPipeline(device.handle, renderer.pipeline, nullptr);
    vkDestroyPipelineLayout(device.handle, renderer.pipelineLayout, nullptr);
    if (renderer.kit) {
        freeKitSets(device, *renderer.kit, renderer.computeSets);
        freeKitSets(device, *renderer.kit, renderer.slotSets);
    }
    vkDestroyDescriptorSetLayout(device.handle, renderer.setLayout, nullptr);
    renderer = Renderer{};
}

void setFieldImage(const Device& device, Renderer& renderer, uint32_t slot, VkImageView view,
                   VkExtent2D fieldExtent, uint32_t fieldDepth) {
    if (slot >= renderer.slotSets.size())
        throw runtimeError("setFieldImage: slot " + std::to_string(slot) + " out of " +
                           std::to_string(renderer.slotSets.size()));
    if (fieldExtent.width == 0 || fieldExtent.height == 0 || fieldDepth == 0)
        throw runtimeError("setFieldImage: empty field extent");
    if (!renderer.volume && fieldDepth != 1)
        throw runtimeError("setFieldImage: a 3D field needs a renderer made with volume");
    const VkDescriptorImageInfo field{renderer.kit->fieldSampler, view,
                                      VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    writeImageDescriptor(device, renderer.slotSets[slot], ESTUARY_BINDING_FIELD,
                         VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, field);
    if (!renderer.computeSets.empty())
        writeImageDescriptor(device, renderer.computeSets[slot], ESTUARY_BINDING_FIELD,
                             VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, field);
    renderer.fieldExtents[slot] = fieldExtent;
    renderer.fieldDepths[slot] = fieldDepth;
}

void setComputeExtent(const Device& device, Renderer& renderer, VkExtent2D extent) {
    if (!renderer.computePipeline)
        throw runtimeError("setComputeExtent: this renderer was made without compute");
    if (extent.width == 0 || extent.height == 0)
        throw runtimeError("setComputeExtent: empty extent");
    destroyImage(device, renderer.computeTarget);
    renderer.computeTarget = createImage2D(
        device, extent, VK_FORMAT_R8G8B8A8_UNORM, 1,
        VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, "compute draw target");
    const VkDescriptorImageInfo target{VK_NULL_HANDLE, renderer.computeTarget.view,
                                       VK_IMAGE_LAYOUT_GENERAL};
    for (VkDescriptorSet set : renderer.computeSets)
        writeImageDescriptor(device, set, ESTUARY_BINDING_DRAW_TARGET,
                             VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, target);
}

namespace {

// The fields of ESTUARY_VIEW_PUSH_CONSTANTS, which both push blocks start with.
template <class Push>
void setViewMapping(Push& pc, VkExtent2D target, VkExtent2D field, const ViewParams& view) {
    pc.targetWidth = float(target.width);
    pc.targetHeight = float(target.height);
    pc.fieldWidth = float(field.width);
    pc.fieldHeight = float(field.height);
    pc.panX = view.panX;
    pc.panY = view.panY;
    pc.zoom = view.zoom;
    pc.backgroundR = view.background[0];
    pc.backgroundG = view.background[1];
    pc.backgroundB = view.background[2];
}

VolumePushConstants volumePushConstants(VkExtent2D target, VkExtent2D field, uint32_t depth,
                                        const ViewParams& view, const Kit& kit) {
    VolumePushConstants pc{};
    setViewMapping(pc, target, field, view);
    pc.fieldDepth = float(depth);
    const OrbitCamera camera =
        orbitCamera(view.yaw, view.pitch, view.zoom, target.width, target.height);
    std::tie(pc.eyeX, pc.eyeY, pc.eyeZ) = std::tuple(camera.eye[0], camera.eye[1], camera.eye[2]);
    std::tie(pc.forwardX, pc.forwardY, pc.forwardZ) =
        std::tuple(camera.forward[0], camera.forward[1], camera.forward[2]);
    std::tie(pc.rightX, pc.rightY, pc.rightZ) =
        std::tuple(camera.right[0], camera.right[1], camera.right[2]);
    std::tie(pc.upX, pc.upY, pc.upZ) = std::tuple(camera.up[0], camera.up[1], camera.up[2]);
    pc.valueMin = view.valueMin;
    pc.valueMax = view.valueMax;
    pc.colormapIndex = colormapCodeOf(kit, view.colormap, "recordDraw");
    pc.colormapCount = float(kColormapAtlasRows);
    pc.opacity = std::max(view.opacity, 0.0f);
    pc.sliceAxis = float(std::min(view.sliceAxis, 2u));
    pc.slicePosition = std::clamp(view.slicePosition, 0.0f, 1.0f);
    pc.lodBias = view.mipBias;
    return pc;
}

// The field's push constants (2D renderers), the same for the raster and the compute draw.
FieldPushConstants fieldPushConstants(const Renderer& renderer, uint32_t slot, VkExtent2D extent,
                                      const ViewParams& view) {
    FieldPushConstants pc{};
    setViewMapping(pc, extent, renderer.fieldExtents[slot], view);
    pc.mipBias = view.mipBias;
    pc.valueMin = view.valueMin;
    pc.valueMax = view.valueMax;
    pc.colormapIndex = colormapCodeOf(*renderer.kit, view.colormap, "recordDraw");
    pc.colormapCount = float(kColormapAtlasRows);
    return pc;
}

// The compute draw: storage image (its previous copy done) → GENERAL, dispatch 8 x 8 tiles,
// → TRANSFER_SRC; the target COLOR_ATTACHMENT → TRANSFER_DST, copy (blit when the target's format
// is not the storage image's RGBA8: the blit swizzles, e.g. into a BGRA swapchain image), → back to
// COLOR_ATTACHMENT for the particles' pass and the caller.
void recordComputeDraw(const Renderer& renderer, VkCommandBuffer cmd, uint32_t slot, VkImage target,
                       VkExtent2D extent, const ViewParams& view) {
    const GpuImage& image = renderer.computeTarget;
    if (!target || image.extent.width != extent.width || image.extent.height != extent.height)
        throw runtimeError("recordDraw: the compute draw needs the target image and "
                           "setComputeExtent of the target's size");
    ImageTransition toWrite;
    toWrite.newLayout = VK_IMAGE_LAYOUT_GENERAL;
    toWrite.srcStage = VK_PIPELINE_STAGE_2_COPY_BIT | VK_PIPELINE_STAGE_2_BLIT_BIT; // last read
    toWrite.dstStage = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    toWrite.dstAccess = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
    recordImageBarrier(cmd, image.handle, toWrite);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, renderer.computePipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, renderer.computeLayout, 0, 1,
                            &renderer.computeSets[slot], 0, nullptr);
    if (renderer.volume) {
        const VolumePushConstants pc = volumePushConstants(
            extent, renderer.fieldExtents[slot], renderer.fieldDepths[slot], view, *renderer.kit);
        vkCmdPushConstants(cmd, renderer.computeLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(pc),
                           &pc);
    } else {
        const FieldPushConstants pc = fieldPushConstants(renderer, slot, extent, view);
        vkCmdPushConstants(cmd, renderer.computeLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(pc),
                           &pc);
    }
    vkCmdDispatch(cmd, (extent.width + 7) / 8, (extent.height + 7) / 8, 1);

    const bool blit = renderer.targetFormat != image.format;
    const VkPipelineStageFlags2 transferStage =
        blit ? VK_PIPELINE_STAGE_2_BLIT_BIT : VK_PIPELINE_STAGE_2_COPY_BIT;
    ImageTransition toRead;
    toRead.oldLayout = VK_IMAGE_LAYOUT_GENERAL;
    toRead.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    toRead.srcStage = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    toRead.srcAccess = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
    toRead.dstStage = transferStage;
    toRead.dstAccess = VK_ACCESS_2_TRANSFER_READ_BIT;
    recordImageBarrier(cmd, image.handle, toRead);
    ImageTransition toCopy;
    toCopy.oldLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    toCopy.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    toCopy.srcStage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
    toCopy.srcAccess = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT;
    toCopy.dstStage = transferStage;
    toCopy.dstAccess = VK_ACCESS_2_TRANSFER_WRITE_BIT;
    recordImageBarrier(cmd, target, toCopy);
    const VkImageSubresourceLayers layer{VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    if (blit) {
        VkImageBlit region{};
        region.srcSubresource = region.dstSubresource = layer;
        region.srcOffsets[1] =
            region.dstOffsets[1] = {int32_t(extent.width), int32_t(extent.height), 1};
        vkCmdBlitImage(cmd, image.handle, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, target,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region, VK_FILTER_NEAREST);
    } else {
        VkImageCopy region{};
        region.srcSubresource = region.dstSubresource = layer;
        region.extent = {extent.width, extent.height, 1};
        vkCmdCopyImage(cmd, image.handle, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, target,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    }
    ImageTransition back;
    back.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    back.newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    back.srcStage = transferStage;
    back.srcAccess = VK_ACCESS_2_TRANSFER_WRITE_BIT;
    back.dstStage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
    back.dstAccess = VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT;
    recordImageBarrier(cmd, target, back);
}

} // namespace

void beginTargetPass(VkCommandBuffer cmd, VkImageView target, VkExtent2D extent, bool clear,
                     const std::array<float, 3>& background, VkImageView depth) {
    VkRenderingAttachmentInfo color{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    color.imageView = target;
    color.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    color.loadOp = clear ? VK_ATTACHMENT_LOAD_OP_CLEAR : VK_ATTACHMENT_LOAD_OP_LOAD;
    color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    color.clearValue.color = {{background[0], background[1], background[2], 1.0f}};
    VkRenderingInfo rendering{VK_STRUCTURE_TYPE_RENDERING_INFO};
    rendering.renderArea = {{0, 0}, extent};
    rendering.layerCount = 1;
    rendering.colorAttachmentCount = 1;
    rendering.pColorAttachments = &color;
    VkRenderingAttachmentInfo depthAttachment{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    if (depth) {
        depthAttachment.imageView = depth;
        depthAttachment.imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
        depthAttachment.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
        depthAttachment.storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
        depthAttachment.clearValue.depthStencil = {0.0f, 0};
        rendering.pDepthAttachment = &depthAttachment;
    }
    vkCmdBeginRendering(cmd, &rendering);
    const VkViewport viewport{0.0f, 0.0f, float(extent.width), float(extent.height), 0.0f, 1.0f};
    const VkRect2D scissor{{0, 0}, extent};
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &scissor);
}

void recordDraw(const Renderer& renderer, VkCommandBuffer cmd, uint32_t slot, VkImageView target,
                VkExtent2D targetExtent, const ViewParams& view, VkImage targetImage) {
    if (slot >= renderer.slotSets.size() || renderer.fieldExtents[slot].width == 0)
        throw runtimeError("recordDraw: slot " + std::to_string(slot) + " has no field image");
    (void)colormapCodeOf(*renderer.kit, view.colormap, "recordDraw"); // before recording
    if (renderer.computePipeline) {
        recordComputeDraw(renderer, cmd, slot, targetImage, targetExtent, view);
        return;
    }

    beginTargetPass(cmd, target, targetExtent, true, view.background);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, renderer.pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, renderer.pipelineLayout, 0, 1,
                            &renderer.slotSets[slot], 0, nullptr);
    if (renderer.volume) {
        const VolumePushConstants pc =
            volumePushConstants(targetExtent, renderer.fieldExtents[slot],
                                renderer.fieldDepths[slot], view, *renderer.kit);
        vkCmdPushConstants(cmd, renderer.pipelineLayout,
                           VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(pc),
                           &pc);
    } else {
        const FieldPushConstants pc = fieldPushConstants(renderer, slot, targetExtent, view);
        vkCmdPushConstants(cmd, renderer.pipelineLayout,
                           VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(pc),
                           &pc);
    }
    vkCmdDraw(cmd, 3, 1, 0, 0);
    vkCmdEndRendering(cmd);
}

} // namespace estuary
