#include "mesh.h"
#include "attributes.h"
#include "pick.h"
#include "renderer_internal.h"
#include "colormap.h"
#include "shared_layout.h"
#include "vk_check.h"

#include <algorithm>
#include <bit>
#include <string>

namespace estuary {

namespace {

// The first depth format the device renders to (D16 is required of every device).
VkFormat chooseDepthFormat(const Device& device) {
    for (VkFormat format : {VK_FORMAT_D32_SFLOAT, VK_FORMAT_D16_UNORM}) {
        VkFormatProperties properties{};
        vkGetPhysicalDeviceFormatProperties(device.physical, format, &properties);
        if (properties.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT)
            return format;
    }
    throw runtimeError("createMeshRenderer: the device renders to neither D32_SFLOAT nor "
                       "D16_UNORM depth");
}

// One set per slot: the colormap, the channels, the normal sums, the draw's indices and the pick's
// state (the pick reads what the draw reads, by compute).
void createSets(const Device& device, MeshRenderer& r, uint32_t slotCount) {
    const VkShaderStageFlags pulled = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_COMPUTE_BIT;
    const VkDescriptorSetLayoutBinding bindings[5] = {
        {ESTUARY_BINDING_COLORMAP, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, pulled, nullptr},
        attributeBinding(pulled),
        {ESTUARY_BINDING_NORMALS, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, pulled, nullptr},
        {ESTUARY_BINDING_DRAW_INDICES, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
         VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
        {ESTUARY_BINDING_PICK, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT,
         nullptr}};
    VkDescriptorSetLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    layoutInfo.bindingCount = 5;
    layoutInfo.pBindings = bindings;
    VK_CHECK(vkCreateDescriptorSetLayout(device.handle, &layoutInfo, nullptr, &r.setLayout));
    nameObject(device, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, r.setLayout, "mesh set layout");
    r.slotSets = allocateKitSets(device, *r.kit, r.setLayout, bindings, slotCount);
    const VkDescriptorImageInfo colormap{r.kit->colormapSampler, r.kit->atlas.view,
                                         VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    for (VkDescriptorSet set : r.slotSets)
        writeImageDescriptor(device, set, ESTUARY_BINDING_COLORMAP,
                             VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, colormap);
}

AttributeChannels meshChannels(const MeshDesc& desc) {
    if (desc.attributes) return *desc.attributes;
    AttributeChannels c = presetChannels(PresetLayout::Vertices);
    c[ESTUARY_CH_INDEX] = {ESTUARY_ATTR_U32, 0, 4, true};
    c[ESTUARY_CH_NORMAL] = {ESTUARY_ATTR_F32X4, 0, 16, true};
    return c;
}

// Points the slot's set at its buffers: the channels, and the bindings that must hold one even
// when unread (no sums, no draw indices) at any of them.
void writeMeshSet(const Device& device, MeshRenderer& r, uint32_t slot) {
    const auto buffers = channelBuffers(r.channels, r.mainBuffers[slot], r.ownBuffers[slot]);
    writeAttributeDescriptors(device, r.slotSets[slot], r.channels, buffers);
    const auto known = std::find_if(buffers.begin(), buffers.end(),
                                    [](const AttributeBuffer& b) { return b.buffer != nullptr; });
    if (known == buffers.end()) return;
    const VkDescriptorSet set = r.slotSets[slot];
    if (r.normalSums.handle)
        writeBufferDescriptor(device, set, ESTUARY_BINDING_NORMALS, r.normalSums.handle,
                              VK_WHOLE_SIZE);
    else
        writeBufferDescriptor(device, set, ESTUARY_BINDING_NORMALS, known->buffer, known->bytes);
    if (r.drawIndices.handle)
        writeBufferDescriptor(device, set, ESTUARY_BINDING_DRAW_INDICES, r.drawIndices.handle,
                              VK_WHOLE_SIZE);
    else
        writeBufferDescriptor(device, set, ESTUARY_BINDING_DRAW_INDICES, known->buffer,
                              known->bytes);
}

// The vertices every per-vertex channel's buffer of the slot holds (the index channel aside).
uint32_t vertexCapacity(const MeshRenderer& r, uint32_t slot) {
    AttributeChannels vertexChannels = r.channels;
    vertexChannels[ESTUARY_CH_INDEX] = {};
    if (r.normalBytes[slot] == 0) vertexChannels[ESTUARY_CH_NORMAL] = {};
    return attributeCapacity(vertexChannels,
                             channelBuffers(r.channels, r.mainBuffers[slot], r.ownBuffers[slot]));
}

} // namespace

MeshRenderer createMeshRenderer(const Device& device, const MeshDesc& desc) {
    if (desc.slotCount == 0) throw runtimeError("createMeshRenderer: slotCount must be >= 1");
    MeshRenderer r;
    r.kit = &requireKit(desc.kit, "createMeshRenderer");
    r.channels = meshChannels(desc);
    fillAttributeSpecialization(r.specialization, r.channels,
                                device.properties.limits.minStorageBufferOffsetAlignment);
    r.mainBuffers.assign(desc.slotCount, AttributeBuffer{});
    r.ownBuffers.assign(desc.slotCount, {});
    r.indexBytes.assign(desc.slotCount, 0);
    r.normalBytes.assign(desc.slotCount, 0);
    r.summedNormals = desc.summedNormals;
    r.wireframe = desc.wireframe;
    r.indexCapacity = desc.wireframe ? 0 : desc.indexCapacity;
    try {
        r.depthFormat = chooseDepthFormat(device);
        createSets(device, r, desc.slotCount);
        createPickState(device, r.pick, r.slotSets, shaderPath(desc.dataDir, "mesh_pick.comp"),
                        "mesh");
        r.pick.cache = &r.kit->pipelineCache;
        r.pipelineLayout = createPushLayout(device, r.setLayout, kDrawPushStages, "mesh layout");
        PipelineShape shape;
        shape.vertexShader = desc.wireframe ? "mesh.vert" : "mesh_indexed.vert";
        shape.fragmentShader = "mesh.frag";
        shape.depthFormat = r.depthFormat;
        shape.name = "mesh pipeline";
        const VkSpecializationInfo channels = r.specialization.info();
        shape.vertexSpecialization = &channels;
        r.pipeline = createGraphicsPipeline(device, &r.kit->pipelineCache, desc.targetFormat,
                                            r.pipelineLayout, desc.dataDir, shape);
        if (desc.summedNormals > 0 || r.indexCapacity > 0)
            r.preparePipeline = createComputePipeline(
                device, &r.kit->pipelineCache, r.pipelineLayout,
                shaderPath(desc.dataDir, "mesh_prepare.comp"), &channels, "mesh prepare");
        if (r.indexCapacity > 0)
            r.drawIndices =
                createBuffer(device, VkDeviceSize(r.indexCapacity) * sizeof(uint32_t),
                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT,
                             VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "mesh draw indices");
        if (desc.summedNormals > 0) {
            const VkDeviceSize bytes = VkDeviceSize(desc.summedNormals) * 4 * sizeof(int32_t);
            r.normalSums =
                createBuffer(device, bytes,
                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "mesh normal sums");
        }
    } catch (...) {
        destroyMeshRenderer(device, r);
        throw;
    }
    return r;
}

void destroyMeshRenderer(const Device& device, MeshRenderer& r) {
    destroyPick(device, r.pick);
    destroyImage(device, r.depth);
    destroyBuffer(device, r.drawIndices);
    destroyBuffer(device, r.normalSums);
    vkDestroyPipeline(device.handle, r.preparePipeline, nullptr);
    vkDestroyPipeline(device.handle, r.pipeline, nullptr);
    vkDestroyPipelineLayout(device.handle, r.pipelineLayout, nullptr);
    if (r.kit) freeKitSets(device, *r.kit, r.slotSets);
    vkDestroyDescriptorSetLayout(device.handle, r.setLayout, nullptr);
    r = MeshRenderer{};
}

void setMeshBuffers(const Device& device, MeshRenderer& r, uint32_t slot, VkBuffer vertices,
                    VkDeviceSize vertexBytes, VkBuffer indices, VkDeviceSize indexBytes,
                    VkBuffer normals, VkDeviceSize normalBytes) {
    if (slot >= r.slotSets.size())
        throw runtimeError("setMeshBuffers: slot " + std::to_string(slot) + " out of " +
                           std::to_string(r.slotSets.size()));
    r.mainBuffers[slot] = {vertices, vertices ? vertexBytes : 0};
    r.ownBuffers[slot][ESTUARY_CH_INDEX] = {indices, indices ? indexBytes : 0};
    r.ownBuffers[slot][ESTUARY_CH_NORMAL] = {normals, normals ? normalBytes : 0};
    r.indexBytes[slot] = indices ? indexBytes : 0;
    r.normalBytes[slot] = normals ? normalBytes : 0;
    writeMeshSet(device, r, slot);
}

void setMeshAttributeBuffer(const Device& device, MeshRenderer& r, uint32_t slot, uint32_t channel,
                            VkBuffer buffer, VkDeviceSize bytes) {
    if (slot >= r.slotSets.size() || channel >= kAttributeChannels)
        throw runtimeError("setMeshAttributeBuffer: slot " + std::to_string(slot) + " of " +
                           std::to_string(r.slotSets.size()) + ", channel " +
                           std::to_string(channel) + " of " + std::to_string(kAttributeChannels));
    if (!r.channels[channel].ownBuffer)
        throw runtimeError("setMeshAttributeBuffer: channel " + std::to_string(channel) +
                           " reads the main buffer");
    r.ownBuffers[slot][channel] = {buffer, buffer ? bytes : 0};
    if (channel == ESTUARY_CH_INDEX) r.indexBytes[slot] = buffer ? bytes : 0;
    if (channel == ESTUARY_CH_NORMAL) r.normalBytes[slot] = buffer ? bytes : 0;
    writeMeshSet(device, r, slot);
}

void setMeshExtent(const Device& device, MeshRenderer& r, VkExtent2D extent) {
    if (extent.width == 0 || extent.height == 0)
        throw runtimeError("setMeshExtent: the target's extent must not be empty");
    destroyImage(device, r.depth);
    r.depth = createImage2D(device, extent, r.depthFormat, 1,
                            VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, "mesh depth");
}

namespace {

MeshPushConstants meshPush(const MeshRenderer& r, VkExtent2D extent, const MeshDraw& draw,
                           uint32_t flags, uint32_t vertices) {
    MeshPushConstants pc{};
    setOrbitPush(pc, extent, draw.view, draw.box);
    pc.valueMin = draw.valueMin;
    pc.valueMax = draw.valueMax;
    pc.colormapIndex = colormapCodeOf(*r.kit, draw.colormap, "recordMesh");
    pc.colormapCount = float(kColormapAtlasRows);
    pc.meshFlagBits = std::bit_cast<float>(flags);
    pc.vertexCountBits = std::bit_cast<float>(vertices);
    pc.triangleCountBits = std::bit_cast<float>(draw.count / 3);
    pc.wireWidth = draw.wireWidth;
    pc.wireR = draw.wire[0];
    pc.wireG = draw.wire[1];
    pc.wireB = draw.wire[2];
    pc.wireA = draw.wire[3];
    return pc;
}

// mesh_prepare.comp: the sums cleared (after the last frame's draw read them) and added afresh,
// and the draw's indices written (after the last frame's draw read them), then made visible to
// the draw.
void recordPrepare(const MeshRenderer& r, VkCommandBuffer cmd, uint32_t slot, uint32_t triangles,
                   bool summed) {
    constexpr VkPipelineStageFlags2 kDrawReads = VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT |
                                                 VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                                                 VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    recordMemoryBarrier(cmd, kDrawReads, VK_ACCESS_2_NONE,
                        VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT |
                            VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_NONE);
    if (summed) {
        vkCmdFillBuffer(cmd, r.normalSums.handle, 0, VK_WHOLE_SIZE, 0);
        recordMemoryBarrier(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                            VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                            VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
                                VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    }
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r.preparePipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r.pipelineLayout, 0, 1,
                            &r.slotSets[slot], 0, nullptr);
    vkCmdDispatch(cmd, gridStrideGroups(triangles), 1, 1);
    recordMemoryBarrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT,
                        VK_ACCESS_2_INDEX_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
}

// The pass: the target kept, the depth image cleared to "farthest" (0: depth is reversed).
void beginMeshPass(const MeshRenderer& r, VkCommandBuffer cmd, VkImageView target,
                   VkExtent2D extent) {
    ImageTransition toDepth;
    toDepth.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED; // cleared: the last frame's depths are not kept
    toDepth.newLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
    toDepth.srcStage = VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT;
    toDepth.srcAccess = VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
    toDepth.dstStage =
        VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT;
    toDepth.dstAccess = VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                        VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
    toDepth.aspect = VK_IMAGE_ASPECT_DEPTH_BIT;
    recordImageBarrier(cmd, r.depth.handle, toDepth);
    beginTargetPass(cmd, target, extent, false, {}, r.depth.view);
}

// What a draw of the slot amounts to: its triangles (0: nothing is drawn), the vertices in the
// buffer, and the flags its shaders see. Throws where recordMesh cannot draw it.
struct Triangles {
    uint32_t count = 0, vertices = 0, flags = 0;
    bool summed = false, drawIndexed = false;
};

Triangles trianglesOf(const MeshRenderer& r, uint32_t slot, const MeshDraw& draw) {
    if (slot >= r.slotSets.size() || vertexCapacity(r, slot) == 0)
        throw runtimeError("recordMesh: slot " + std::to_string(slot) + " has no vertex buffer");
    (void)colormapCodeOf(*r.kit, draw.colormap, "recordMesh"); // before recording
    const bool indexed = r.indexBytes[slot] > 0;
    const uint32_t vertices = vertexCapacity(r, slot);
    const VkDeviceSize available =
        indexed ? channelCapacity(r.channels[ESTUARY_CH_INDEX], r.indexBytes[slot]) : vertices;
    if (draw.count > available)
        throw runtimeError("recordMesh: " + std::to_string(draw.count) +
                           (indexed ? " indices" : " vertices") + " do not fit slot " +
                           std::to_string(slot) + "'s buffer (" + std::to_string(available) + ")");
    Triangles t;
    t.count = draw.count / 3;
    t.vertices = vertices;
    t.summed = !draw.flat && r.normalBytes[slot] == 0 && r.normalSums.handle;
    if (t.summed && t.vertices > r.summedNormals)
        throw runtimeError("recordMesh: " + std::to_string(t.vertices) +
                           " vertices, normals summed for " + std::to_string(r.summedNormals));
    t.flags = draw.flags & (ESTUARY_MESH_FLAG_WIREFRAME | ESTUARY_MESH_FLAG_RGBA);
    if (indexed) t.flags |= ESTUARY_MESH_FLAG_INDEXED;
    // Without a wireframe, indexed triangles are drawn through the renderer's checked copy.
    t.drawIndexed = indexed && !r.wireframe;
    if (t.drawIndexed && draw.count > r.indexCapacity)
        throw runtimeError("recordMesh: " + std::to_string(draw.count) +
                           " indices, the renderer's draw holds " +
                           std::to_string(r.indexCapacity));
    if (t.drawIndexed) t.flags |= ESTUARY_MESH_FLAG_WRITE_INDICES;
    if ((draw.flags & ESTUARY_MESH_FLAG_WIREFRAME) && !r.wireframe)
        throw runtimeError(
            "recordMesh: a wireframe needs a renderer made with MeshDesc::wireframe");
    // Smooth without normals to read shades flat: the renderer was made without sums.
    if (draw.flat || (r.normalBytes[slot] == 0 && !t.summed)) t.flags |= ESTUARY_MESH_FLAG_FLAT;
    if (t.summed) t.flags |= ESTUARY_MESH_FLAG_NORMAL_SUMS;
    return t;
}

void pushMesh(const MeshRenderer& r, VkCommandBuffer cmd, VkExtent2D extent, const MeshDraw& draw,
              const Triangles& t) {
    const MeshPushConstants pc = meshPush(r, extent, draw, t.flags, t.vertices);
    vkCmdPushConstants(cmd, r.pipelineLayout, kDrawPushStages, 0, sizeof(pc), &pc);
}

} // namespace

void recordMesh(const MeshRenderer& r, VkCommandBuffer cmd, uint32_t slot, VkImageView target,
                VkExtent2D extent, const MeshDraw& draw) {
    const Triangles t = trianglesOf(r, slot, draw);
    if (extent.width != r.depth.extent.width || extent.height != r.depth.extent.height)
        throw runtimeError(
            "recordMesh: the depth image needs setMeshExtent of the target's size (" +
            std::to_string(extent.width) + "x" + std::to_string(extent.height) + ")");
    if (t.count == 0) return;
    pushMesh(r, cmd, extent, draw, t);
    if (t.summed || t.drawIndexed) recordPrepare(r, cmd, slot, t.count, t.summed);
    beginMeshPass(r, cmd, target, extent);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r.pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r.pipelineLayout, 0, 1,
                            &r.slotSets[slot], 0, nullptr);
    if (t.drawIndexed) {
        vkCmdBindIndexBuffer(cmd, r.drawIndices.handle, 0, VK_INDEX_TYPE_UINT32);
        vkCmdDrawIndexed(cmd, 3 * t.count, 1, 0, 0, 0);
    } else {
        vkCmdDraw(cmd, 3 * t.count, 1, 0, 0);
    }
    vkCmdEndRendering(cmd);
}

void prepareMeshPick(const Device& device, MeshRenderer& r) {
    const VkSpecializationInfo channels = r.specialization.info();
    preparePick(device, r.pick, r.pipelineLayout, &channels);
}

void recordMeshPick(const MeshRenderer& r, VkCommandBuffer cmd, uint32_t slot, VkExtent2D extent,
                    const MeshDraw& draw, const PickQuery& query, VkBuffer destination,
                    VkDeviceSize offset) {
    const Triangles t = trianglesOf(r, slot, draw);
    pushMesh(r, cmd, extent, draw, t);
    recordPickPasses(r.pick, cmd, r.pipelineLayout, r.slotSets[slot], query, t.count, destination,
                     offset);
}

} // namespace estuary
