// The renderer's own helpers shared by its source files (not installed, not for callers): debug
// names, descriptor writes, SPIR-V loading, samplers and the colormap image, the dynamic-rendering
// pass, and the pipelines (renderer_pipelines.cpp): graphics pipelines for the field and the
// points, and the compute draw's pipeline, set layout and sets.
#pragma once

#include "kit.h"
#include "renderer.h"
#include "volume_camera.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <string>
#include <vector>

namespace estuary {

template <typename Handle>
void nameObject(const Device& device, VkObjectType type, Handle handle, const std::string& name) {
    setDebugName(device, type, reinterpret_cast<uint64_t>(handle), name.c_str());
}

// One image descriptor (a sampler, or a storage image) of `set` pointed at `info`.
inline void writeImageDescriptor(const Device& device, VkDescriptorSet set, uint32_t binding,
                                 VkDescriptorType type, const VkDescriptorImageInfo& info) {
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = set;
    write.dstBinding = binding;
    write.descriptorCount = 1;
    write.descriptorType = type;
    write.pImageInfo = &info;
    vkUpdateDescriptorSets(device.handle, 1, &write, 0, nullptr);
}

// One storage-buffer descriptor of `set` pointed at the first `bytes` of `buffer`.
inline void writeBufferDescriptor(const Device& device, VkDescriptorSet set, uint32_t binding,
                                  VkBuffer buffer, VkDeviceSize bytes) {
    const VkDescriptorBufferInfo info{buffer, 0, bytes};
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = set;
    write.dstBinding = binding;
    write.descriptorCount = 1;
    write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    write.pBufferInfo = &info;
    vkUpdateDescriptorSets(device.handle, 1, &write, 0, nullptr);
}

// `count` sets of `layout` from `pool` (one per slot).
std::vector<VkDescriptorSet> allocateSets(const Device& device, VkDescriptorPool pool,
                                          VkDescriptorSetLayout layout, uint32_t count);

// Throws a runtime error naming the file when it is missing or not SPIR-V.
VkShaderModule loadShaderModule(const Device& device, const std::filesystem::path& path);

// A pipeline layout of one set layout and the push range every block fits (kPushConstantBytes,
// shared_layout.h) for `stages`.
VkPipelineLayout createPushLayout(const Device& device, VkDescriptorSetLayout setLayout,
                                  VkShaderStageFlags stages, const char* name);

// What differs between the graphics pipelines (field, points).
struct PipelineShape {
    std::string vertexShader, fragmentShader; // paths relative to <dataDir>/shaders, or absolute
    VkPrimitiveTopology topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    bool additive = false;   // ONE + ONE blending instead of replacing
    bool alphaBlend = false; // SRC_ALPHA, ONE_MINUS_SRC_ALPHA (over) instead of replacing
    const VkSpecializationInfo* fragmentSpecialization = nullptr;
    const VkSpecializationInfo* vertexSpecialization = nullptr;
    // A depth attachment of this format, tested and written with reversed depth (nearer is
    // greater: GREATER passes); UNDEFINED: none.
    VkFormat depthFormat = VK_FORMAT_UNDEFINED;
    const char* name = "";
};
// Both pipeline makers create with `cache` (null: none) and count the creation in it.
VkPipeline createGraphicsPipeline(const Device& device, PipelineCache* cache, VkFormat targetFormat,
                                  VkPipelineLayout layout, const std::filesystem::path& dataDir,
                                  const PipelineShape& shape);
// `name` under <dataDir>/shaders with ".spv" appended (or `name` + ".spv" itself when absolute).
std::filesystem::path shaderPath(const std::filesystem::path& dataDir, const std::string& name);

// A compute pipeline of the SPIR-V at `path` (a runtime error naming it when it fails).
VkPipeline createComputePipeline(const Device& device, PipelineCache* cache,
                                 VkPipelineLayout layout, const std::filesystem::path& path,
                                 const VkSpecializationInfo* specialization,
                                 const std::string& name);

// The pipeline layout and the field's pipeline (unless RendererDesc::compute).
void createPipelines(const Device& device, Renderer& renderer, const RendererDesc& desc);

// Trilinear, clamp to edge, levels up to maxLod.
VkSampler createLinearSampler(const Device& device, float maxLod, const char* name);
// The kit a renderer's desc names; a runtime error naming `what` without one.
Kit& requireKit(Kit* kit, const char* what);

// Dynamic rendering into `target` with viewport and scissor set: cleared to `background`, or
// kept (what an earlier pass drew); with `depth` (DEPTH_ATTACHMENT_OPTIMAL), that image cleared to
// 0, the farthest (depth is reversed), and not kept.
void beginTargetPass(VkCommandBuffer cmd, VkImageView target, VkExtent2D extent, bool clear,
                     const std::array<float, 3>& background, VkImageView depth = VK_NULL_HANDLE);

// The workgroups of a grid-stride loop of 256-wide groups over `items` (the splats, the mesh's
// prepare pass, the picks): enough to fill any GPU, within every device's dispatch limit.
inline uint32_t gridStrideGroups(uint32_t items) {
    constexpr uint32_t kGroupSize = 256, kMaxGroups = 65535;
    return std::min((items + kGroupSize - 1) / kGroupSize, kMaxGroups);
}

// The stages the points' and meshes' push blocks reach: their draws', and compute for the splat,
// the mesh's prepare pass and the pick.
inline constexpr VkShaderStageFlags kDrawPushStages =
    VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT | VK_SHADER_STAGE_COMPUTE_BIT;

// The orbit camera's members of a 3D push block (the points', markers', lines' and meshes'): the
// target's size, eye, forward, right and up, and the box framed (its largest side spans the unit
// the volume spans, [-0.5, 0.5]).
template <class Push>
void setOrbitPush(Push& pc, VkExtent2D extent, const ViewParams& view,
                  const std::array<float, 6>& box) {
    pc.targetWidth = float(extent.width);
    pc.targetHeight = float(extent.height);
    const OrbitCamera camera =
        orbitCamera(view.yaw, view.pitch, view.zoom, extent.width, extent.height);
    pc.eyeX = camera.eye[0], pc.eyeY = camera.eye[1], pc.eyeZ = camera.eye[2];
    pc.forwardX = camera.forward[0], pc.forwardY = camera.forward[1];
    pc.forwardZ = camera.forward[2];
    pc.rightX = camera.right[0], pc.rightY = camera.right[1], pc.rightZ = camera.right[2];
    pc.upX = camera.up[0], pc.upY = camera.up[1], pc.upZ = camera.up[2];
    pc.centreX = 0.5f * (box[0] + box[3]);
    pc.centreY = 0.5f * (box[1] + box[4]);
    pc.centreZ = 0.5f * (box[2] + box[5]);
    const float side = std::max({box[3] - box[0], box[4] - box[1], box[5] - box[2]});
    pc.invScale = side > 0.0f ? 1.0f / side : 1.0f;
}

// RendererDesc::compute: the fragment shader's compute twin with its own set layout (field,
// colormaps, storage image), layout and one set per slot from the renderer's pool.
void createComputeDraw(const Device& device, Renderer& renderer, const RendererDesc& desc);

} // namespace estuary
