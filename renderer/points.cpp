#include "points.h"
#include "renderer_internal.h"
#include "colormap.h"
#include "shared_layout.h"
#include "vk_check.h"
#include "volume_camera.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

namespace estuary {

PointsRenderer createPointsRenderer(const Device& device, VkCommandPool pool,
                                    const PointsDesc& desc) {
    if (desc.slotCount == 0) throw runtimeError("createPointsRenderer: slotCount must be >= 1");
    PointsRenderer r;
    r.threeD = desc.threeD;
    r.colormapCount = kColormapCount;
    r.bytes.assign(desc.slotCount, 0);
    r.maxPointSize = device.largePoints ? device.properties.limits.pointSizeRange[1] : 1.0f;
    try {
        r.colormapSampler = createLinearSampler(device, 0.0f, "points colormap");
        r.colormaps = createColormapImage(device, pool, desc.dataDir);
        VkDescriptorSetLayoutBinding bindings[2]{};
        bindings[0] = {ESTUARY_BINDING_COLORMAP, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1,
                       VK_SHADER_STAGE_VERTEX_BIT, nullptr};
        bindings[1] = {ESTUARY_BINDING_POINTS, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                       VK_SHADER_STAGE_VERTEX_BIT, nullptr};
        VkDescriptorSetLayoutCreateInfo layoutInfo{
            VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
        layoutInfo.bindingCount = 2;
        layoutInfo.pBindings = bindings;
        VK_CHECK(vkCreateDescriptorSetLayout(device.handle, &layoutInfo, nullptr, &r.setLayout));
        nameObject(device, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, r.setLayout, "points set layout");
        const VkDescriptorPoolSize sizes[2] = {
            {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, desc.slotCount},
            {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, desc.slotCount}};
        VkDescriptorPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
        poolInfo.maxSets = desc.slotCount;
        poolInfo.poolSizeCount = 2;
        poolInfo.pPoolSizes = sizes;
        VK_CHECK(vkCreateDescriptorPool(device.handle, &poolInfo, nullptr, &r.descriptorPool));
        const std::vector<VkDescriptorSetLayout> layouts(desc.slotCount, r.setLayout);
        VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        alloc.descriptorPool = r.descriptorPool;
        alloc.descriptorSetCount = desc.slotCount;
        alloc.pSetLayouts = layouts.data();
        r.slotSets.resize(desc.slotCount);
        VK_CHECK(vkAllocateDescriptorSets(device.handle, &alloc, r.slotSets.data()));
        const VkDescriptorImageInfo colormap{r.colormapSampler, r.colormaps.view,
                                             VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
        for (VkDescriptorSet set : r.slotSets)
            writeImageDescriptor(device, set, ESTUARY_BINDING_COLORMAP,
                                 VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, colormap);
        r.pipelineLayout = createPushLayout(
            device, r.setLayout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
            "points layout");
        PipelineShape shape;
        shape.vertexShader = desc.threeD ? "points3d.vert" : "points.vert";
        shape.fragmentShader = "points.frag";
        shape.topology = VK_PRIMITIVE_TOPOLOGY_POINT_LIST;
        shape.additive = true;
        shape.name = desc.threeD ? "3D points pipeline" : "points pipeline";
        r.pipeline = createGraphicsPipeline(device, desc.targetFormat, r.pipelineLayout,
                                            desc.dataDir, shape);
    } catch (...) {
        destroyPointsRenderer(device, r);
        throw;
    }
    return r;
}

void destroyPointsRenderer(const Device& device, PointsRenderer& r) {
    vkDestroyPipeline(device.handle, r.pipeline, nullptr);
    vkDestroyPipelineLayout(device.handle, r.pipelineLayout, nullptr);
    vkDestroyDescriptorPool(device.handle, r.descriptorPool, nullptr); // frees the sets
    vkDestroyDescriptorSetLayout(device.handle, r.setLayout, nullptr);
    destroyImage(device, r.colormaps);
    vkDestroySampler(device.handle, r.colormapSampler, nullptr);
    r = PointsRenderer{};
}

void setPointsBuffer(const Device& device, PointsRenderer& r, uint32_t slot, VkBuffer buffer,
                     VkDeviceSize bytes) {
    if (slot >= r.slotSets.size())
        throw runtimeError("setPointsBuffer: slot " + std::to_string(slot) + " out of " +
                           std::to_string(r.slotSets.size()));
    const VkDescriptorBufferInfo info{buffer, 0, bytes};
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = r.slotSets[slot];
    write.dstBinding = ESTUARY_BINDING_POINTS;
    write.descriptorCount = 1;
    write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    write.pBufferInfo = &info;
    vkUpdateDescriptorSets(device.handle, 1, &write, 0, nullptr);
    r.bytes[slot] = bytes;
}

float pointIntensity(VkExtent2D target, uint32_t count, float size) {
    const double area = double(count) * double(size) * double(size);
    const double fill = double(target.width) * double(target.height) / std::max(area, 1.0);
    return float(std::clamp(2.0 * fill, 0.15, 1.0));
}

namespace {

Point3dPushConstants push3d(const PointsRenderer& r, VkExtent2D extent, const PointsDraw& draw,
                            float size) {
    Point3dPushConstants pc{};
    pc.targetWidth = float(extent.width);
    pc.targetHeight = float(extent.height);
    const OrbitCamera camera =
        orbitCamera(draw.view.yaw, draw.view.pitch, draw.view.zoom, extent.width, extent.height);
    std::tie(pc.eyeX, pc.eyeY, pc.eyeZ) = std::tuple(camera.eye[0], camera.eye[1], camera.eye[2]);
    std::tie(pc.forwardX, pc.forwardY, pc.forwardZ) =
        std::tuple(camera.forward[0], camera.forward[1], camera.forward[2]);
    std::tie(pc.rightX, pc.rightY, pc.rightZ) =
        std::tuple(camera.right[0], camera.right[1], camera.right[2]);
    std::tie(pc.upX, pc.upY, pc.upZ) = std::tuple(camera.up[0], camera.up[1], camera.up[2]);
    const auto& b = draw.box;
    pc.centreX = 0.5f * (b[0] + b[3]);
    pc.centreY = 0.5f * (b[1] + b[4]);
    pc.centreZ = 0.5f * (b[2] + b[5]);
    // The box's largest side spans the unit the volume spans: [-0.5, 0.5].
    const float side = std::max({b[3] - b[0], b[4] - b[1], b[5] - b[2]});
    pc.invScale = side > 0.0f ? 1.0f / side : 1.0f;
    pc.pointSize = size;
    pc.valueMin = draw.valueMin;
    pc.valueMax = draw.valueMax;
    pc.colormapIndex = float(draw.colormap);
    pc.colormapCount = float(r.colormapCount);
    pc.intensity = draw.intensity > 0.0f ? std::min(draw.intensity, 1.0f)
                                         : pointIntensity(extent, draw.count, size);
    return pc;
}

PointPushConstants push2d(const PointsRenderer& r, VkExtent2D extent, const PointsDraw& draw,
                          float size) {
    PointPushConstants pc{};
    pc.targetWidth = float(extent.width);
    pc.targetHeight = float(extent.height);
    pc.fieldWidth = float(draw.domain.width);
    pc.fieldHeight = float(draw.domain.height);
    pc.panX = draw.view.panX;
    pc.panY = draw.view.panY;
    pc.zoom = draw.view.zoom;
    pc.uvScaleX = draw.uvScale[0];
    pc.uvScaleY = draw.uvScale[1];
    pc.uvOffsetX = draw.uvOffset[0];
    pc.uvOffsetY = draw.uvOffset[1];
    pc.pointSize = size;
    pc.valueMin = draw.valueMin;
    pc.valueMax = draw.valueMax;
    pc.colormapIndex = float(draw.colormap);
    pc.colormapCount = float(r.colormapCount);
    pc.intensity = draw.intensity > 0.0f ? std::min(draw.intensity, 1.0f)
                                         : pointIntensity(extent, draw.count, size);
    return pc;
}

} // namespace

void recordPoints(const PointsRenderer& r, VkCommandBuffer cmd, uint32_t slot, VkImageView target,
                  VkExtent2D extent, const PointsDraw& draw) {
    constexpr VkDeviceSize kPointBytes = 4 * sizeof(float);
    if (draw.count == 0) return;
    if (slot >= r.slotSets.size() || VkDeviceSize(draw.count) * kPointBytes > r.bytes[slot])
        throw runtimeError("recordPoints: " + std::to_string(draw.count) +
                           " points do not fit slot " + std::to_string(slot) + "'s buffer of " +
                           std::to_string(slot < r.bytes.size() ? r.bytes[slot] : 0) + " bytes");
    if (draw.colormap >= r.colormapCount)
        throw runtimeError("recordPoints: colormap " + std::to_string(draw.colormap) + " out of " +
                           std::to_string(r.colormapCount));
    const float size = std::clamp(draw.size, 1.0f, r.maxPointSize);
    beginTargetPass(cmd, target, extent, false, draw.view.background);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r.pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r.pipelineLayout, 0, 1,
                            &r.slotSets[slot], 0, nullptr);
    const VkShaderStageFlags stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
    if (r.threeD) {
        const Point3dPushConstants pc = push3d(r, extent, draw, size);
        vkCmdPushConstants(cmd, r.pipelineLayout, stages, 0, sizeof(pc), &pc);
    } else {
        const PointPushConstants pc = push2d(r, extent, draw, size);
        vkCmdPushConstants(cmd, r.pipelineLayout, stages, 0, sizeof(pc), &pc);
    }
    vkCmdDraw(cmd, draw.count, 1, 0, 0);
    vkCmdEndRendering(cmd);
}

} // namespace estuary
