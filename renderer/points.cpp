#include "points.h"
#include "pick.h"
#include "renderer_internal.h"
#include "colormap.h"
#include "shared_layout.h"
#include "vk_check.h"
#include "volume_camera.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

namespace estuary {

namespace {

// One set per slot: the colormap and the elements' channels (or the glyphs' velocity image), the
// pick's state, and for the splat its buffer, the storage target and the markers'
// colours. The pick reads what the draw reads, by compute.
void createSets(const Device& device, PointsRenderer& r, uint32_t slotCount, bool splat) {
    const VkShaderStageFlags pointStages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_COMPUTE_BIT;
    const VkShaderStageFlags resolveStages =
        VK_SHADER_STAGE_COMPUTE_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
    std::vector<VkDescriptorSetLayoutBinding> bindings;
    const auto add = [&](uint32_t binding, VkDescriptorType type, VkShaderStageFlags stages) {
        bindings.push_back({binding, type, 1, stages, nullptr});
    };
    add(ESTUARY_BINDING_COLORMAP, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, pointStages);
    if (r.glyphs)
        add(ESTUARY_BINDING_FIELD, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, pointStages);
    else
        bindings.push_back(attributeBinding(pointStages));
    add(ESTUARY_BINDING_PICK, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_SHADER_STAGE_COMPUTE_BIT);
    if (splat) {
        add(ESTUARY_BINDING_SPLAT, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, resolveStages);
        add(ESTUARY_BINDING_DRAW_TARGET, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
            VK_SHADER_STAGE_COMPUTE_BIT);
        if (r.markers || r.glyphs || r.lines)
            add(ESTUARY_BINDING_MARKER_COLOURS, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, resolveStages);
    }
    VkDescriptorSetLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    layoutInfo.bindingCount = uint32_t(bindings.size());
    layoutInfo.pBindings = bindings.data();
    VK_CHECK(vkCreateDescriptorSetLayout(device.handle, &layoutInfo, nullptr, &r.setLayout));
    nameObject(device, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, r.setLayout, "points set layout");
    r.slotSets = allocateKitSets(device, *r.kit, r.setLayout, bindings, slotCount);
    const VkDescriptorImageInfo colormap{r.kit->colormapSampler, r.kit->atlas.view,
                                         VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    for (VkDescriptorSet set : r.slotSets)
        writeImageDescriptor(device, set, ESTUARY_BINDING_COLORMAP,
                             VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, colormap);
}

// Whether compute shaders have what the merged splat uses: subgroup vote and relative shuffles.
bool subgroupsMerge(const Device& device) {
    VkPhysicalDeviceSubgroupProperties subgroups{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                           &subgroups};
    vkGetPhysicalDeviceProperties2(device.physical, &properties);
    const VkSubgroupFeatureFlags needed = VK_SUBGROUP_FEATURE_BASIC_BIT |
                                          VK_SUBGROUP_FEATURE_VOTE_BIT |
                                          VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT;
    return (subgroups.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
           (subgroups.supportedOperations & needed) == needed;
}

// The splat's compute pipeline and the resolve's: in place by compute, or a full-screen additive
// pass.
void createSplatPipelines(const Device& device, PointsRenderer& r, const PointsDesc& desc) {
    const VkSpecializationInfo channels = r.specialization.info();
    if (desc.markers || desc.glyphs || desc.lines) { // the topmost one per pixel
        const std::string kind = desc.lines ? "lines" : desc.glyphs ? "glyphs" : "markers";
        const std::string splat = kind + (desc.threeD ? "3d" : "") + "_splat.comp";
        const std::string resolve = desc.lines ? "lines_resolve" : "markers_resolve";
        r.splatPipeline =
            createComputePipeline(device, &r.kit->pipelineCache, r.pipelineLayout,
                                  shaderPath(desc.dataDir, splat), &channels, "markers splat");
        r.resolveComputePipeline =
            createComputePipeline(device, &r.kit->pipelineCache, r.pipelineLayout,
                                  shaderPath(desc.dataDir, resolve + ".comp"), nullptr,
                                  kind + " splat resolve (compute)");
        PipelineShape shape;
        shape.vertexShader = "fullscreen.vert";
        shape.fragmentShader = resolve + ".frag";
        shape.alphaBlend = true;
        shape.name = "markers splat resolve";
        r.resolvePipeline = createGraphicsPipeline(device, &r.kit->pipelineCache, desc.targetFormat,
                                                   r.pipelineLayout, desc.dataDir, shape);
        // What the resolve reads of each: a marker's colour, a segment's ends and colours.
        const VkDeviceSize bytes =
            std::max<VkDeviceSize>(desc.markerCapacity, 1) * (desc.lines ? 32 : 4);
        r.markerColours = createBuffer(device, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                       VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "splat items");
        r.markerCapacity = desc.markerCapacity;
        for (VkDescriptorSet set : r.slotSets)
            writeBufferDescriptor(device, set, ESTUARY_BINDING_MARKER_COLOURS,
                                  r.markerColours.handle, bytes);
        return;
    }
    r.packedSplat = desc.packedSplat && device.int64Atomics;
    r.splatVariant = desc.splatVariant;
    if (r.splatVariant == SplatVariant::Merged && !(r.packedSplat && subgroupsMerge(device)))
        r.splatVariant = SplatVariant::Packed;
    if (r.splatVariant == SplatVariant::Saturated) r.packedSplat = false;
    const char* suffix = r.splatVariant == SplatVariant::Merged      ? "_merged.comp"
                         : r.splatVariant == SplatVariant::Saturated ? "_saturated.comp"
                         : r.packedSplat                             ? "_packed.comp"
                                                                     : ".comp";
    r.splatFormat = r.splatVariant == SplatVariant::Saturated ? 2u : r.packedSplat ? 1u : 0u;
    const std::string name = std::string(desc.threeD ? "points3d_splat" : "points_splat") + suffix;
    r.splatPipeline = createComputePipeline(device, &r.kit->pipelineCache, r.pipelineLayout,
                                            shaderPath(desc.dataDir, name), &channels,
                                            desc.threeD ? "3D points splat" : "points splat");
    const VkSpecializationMapEntry formatEntry{0, 0, sizeof(r.splatFormat)};
    const VkSpecializationInfo specialization{1, &formatEntry, sizeof(r.splatFormat),
                                              &r.splatFormat};
    r.resolveComputePipeline =
        createComputePipeline(device, &r.kit->pipelineCache, r.pipelineLayout,
                              shaderPath(desc.dataDir, "points_resolve.comp"), &specialization,
                              "points splat resolve (compute)");
    PipelineShape shape;
    shape.vertexShader = "fullscreen.vert";
    shape.fragmentShader = "points_resolve.frag";
    shape.additive = true;
    shape.name = "points splat resolve";
    shape.fragmentSpecialization = &specialization;
    r.resolvePipeline = createGraphicsPipeline(device, &r.kit->pipelineCache, desc.targetFormat,
                                               r.pipelineLayout, desc.dataDir, shape);
}

// The channels the renderer reads: the desc's, or its kind's preset (lines: indices through the
// index channel, read where setLinesIndices gave a buffer). Glyphs read their image: none.
AttributeChannels presetOf(const PointsDesc& desc) {
    if (desc.glyphs) return {};
    if (desc.attributes) return *desc.attributes;
    AttributeChannels c = presetChannels(desc.lines     ? PresetLayout::Vertices
                                         : desc.markers ? PresetLayout::Markers
                                         : desc.threeD  ? PresetLayout::Points3d
                                                        : PresetLayout::Points2d);
    if (desc.lines) c[ESTUARY_CH_INDEX] = {ESTUARY_ATTR_U32, 0, 4, true};
    return c;
}

} // namespace

PointsRenderer createPointsRenderer(const Device& device, const PointsDesc& desc) {
    if (desc.slotCount == 0) throw runtimeError("createPointsRenderer: slotCount must be >= 1");
    if (int(desc.markers) + int(desc.lines) + int(desc.glyphs) > 1)
        throw runtimeError("createPointsRenderer: markers, lines or glyphs, one of them");
    PointsRenderer r;
    r.kit = &requireKit(desc.kit, "createPointsRenderer");
    r.threeD = desc.threeD;
    r.markers = desc.markers;
    r.lines = desc.lines;
    r.glyphs = desc.glyphs;
    r.indexBytes.assign(desc.slotCount, 0);
    r.channels = presetOf(desc);
    fillAttributeSpecialization(r.specialization, r.channels,
                                device.properties.limits.minStorageBufferOffsetAlignment);
    r.mainBuffers.assign(desc.slotCount, AttributeBuffer{});
    r.ownBuffers.assign(desc.slotCount, {});
    r.glyphExtents.assign(desc.slotCount, VkExtent3D{0, 0, 0});
    r.bytes.assign(desc.slotCount, 0);
    r.maxPointSize = device.largePoints ? device.properties.limits.pointSizeRange[1] : 1.0f;
    try {
        createSets(device, r, desc.slotCount, desc.splat);
        const std::string kind = desc.lines     ? "lines"
                                 : desc.glyphs  ? "glyphs"
                                 : desc.markers ? "markers"
                                                : "points";
        createPickState(device, r.pick, r.slotSets,
                        shaderPath(desc.dataDir, kind + (desc.threeD ? "3d" : "") + "_pick.comp"),
                        kind);
        r.pick.cache = &r.kit->pipelineCache;
        r.pipelineLayout = createPushLayout(device, r.setLayout, kDrawPushStages, "points layout");
        PipelineShape shape;
        if (desc.lines) {
            shape.vertexShader = desc.threeD ? "lines3d.vert" : "lines.vert";
            shape.fragmentShader = "lines.frag";
            shape.alphaBlend = true;
            shape.name = desc.threeD ? "3D lines pipeline" : "lines pipeline";
        } else if (desc.markers || desc.glyphs) {
            shape.vertexShader = desc.glyphs && desc.threeD ? "glyphs3d.vert"
                                 : desc.glyphs              ? "glyphs.vert"
                                 : desc.threeD              ? "markers3d.vert"
                                                            : "markers.vert";
            shape.fragmentShader = "markers.frag";
            shape.alphaBlend = true;
            shape.name = desc.threeD ? "3D markers pipeline" : "markers pipeline";
        } else {
            shape.vertexShader = desc.threeD ? "points3d.vert" : "points.vert";
            shape.fragmentShader = "points.frag";
            shape.topology = VK_PRIMITIVE_TOPOLOGY_POINT_LIST;
            shape.additive = true;
            shape.name = desc.threeD ? "3D points pipeline" : "points pipeline";
        }
        const VkSpecializationInfo channels = r.specialization.info();
        shape.vertexSpecialization = &channels;
        r.pipeline = createGraphicsPipeline(device, &r.kit->pipelineCache, desc.targetFormat,
                                            r.pipelineLayout, desc.dataDir, shape);
        if (desc.splat) createSplatPipelines(device, r, desc);
    } catch (...) {
        destroyPointsRenderer(device, r);
        throw;
    }
    return r;
}

void destroyPointsRenderer(const Device& device, PointsRenderer& r) {
    destroyPick(device, r.pick);
    destroyBuffer(device, r.splatBuffer);
    destroyBuffer(device, r.markerColours);
    vkDestroyPipeline(device.handle, r.resolveComputePipeline, nullptr);
    vkDestroyPipeline(device.handle, r.resolvePipeline, nullptr);
    vkDestroyPipeline(device.handle, r.splatPipeline, nullptr);
    vkDestroyPipeline(device.handle, r.pipeline, nullptr);
    vkDestroyPipelineLayout(device.handle, r.pipelineLayout, nullptr);
    if (r.kit) freeKitSets(device, *r.kit, r.slotSets);
    vkDestroyDescriptorSetLayout(device.handle, r.setLayout, nullptr);
    r = PointsRenderer{};
}

void setPointsBuffer(const Device& device, PointsRenderer& r, uint32_t slot, VkBuffer buffer,
                     VkDeviceSize bytes) {
    if (slot >= r.slotSets.size())
        throw runtimeError("setPointsBuffer: slot " + std::to_string(slot) + " out of " +
                           std::to_string(r.slotSets.size()));
    r.mainBuffers[slot] = {buffer, bytes};
    r.bytes[slot] = bytes;
    writeAttributeDescriptors(device, r.slotSets[slot], r.channels,
                              channelBuffers(r.channels, r.mainBuffers[slot], r.ownBuffers[slot]));
}

void setAttributeBuffer(const Device& device, PointsRenderer& r, uint32_t slot, uint32_t channel,
                        VkBuffer buffer, VkDeviceSize bytes) {
    if (slot >= r.slotSets.size() || channel >= kAttributeChannels)
        throw runtimeError("setAttributeBuffer: slot " + std::to_string(slot) + " of " +
                           std::to_string(r.slotSets.size()) + ", channel " +
                           std::to_string(channel) + " of " + std::to_string(kAttributeChannels));
    if (!r.channels[channel].ownBuffer)
        throw runtimeError("setAttributeBuffer: channel " + std::to_string(channel) +
                           " reads the main buffer");
    r.ownBuffers[slot][channel] = {buffer, buffer ? bytes : 0};
    writeAttributeDescriptors(device, r.slotSets[slot], r.channels,
                              channelBuffers(r.channels, r.mainBuffers[slot], r.ownBuffers[slot]));
}

void setGlyphImage(const Device& device, PointsRenderer& r, uint32_t slot, VkImageView view,
                   VkExtent3D extent) {
    if (!r.glyphs) throw runtimeError("setGlyphImage: this renderer draws no glyphs");
    if (slot >= r.slotSets.size())
        throw runtimeError("setGlyphImage: slot " + std::to_string(slot) + " out of " +
                           std::to_string(r.slotSets.size()));
    writeImageDescriptor(device, r.slotSets[slot], ESTUARY_BINDING_FIELD,
                         VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                         {r.kit->colormapSampler, view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL});
    r.glyphExtents[slot] = extent;
}

void setLinesIndices(const Device& device, PointsRenderer& r, uint32_t slot, VkBuffer buffer,
                     VkDeviceSize bytes) {
    if (!r.lines) throw runtimeError("setLinesIndices: this renderer draws no lines");
    if (slot >= r.slotSets.size())
        throw runtimeError("setLinesIndices: slot " + std::to_string(slot) + " out of " +
                           std::to_string(r.slotSets.size()));
    r.indexBytes[slot] = buffer ? bytes : 0;
    setAttributeBuffer(device, r, slot, ESTUARY_CH_INDEX, buffer, bytes);
}

void setPointsExtent(const Device& device, PointsRenderer& r, VkExtent2D extent,
                     VkImageView storageTarget) {
    if (!r.splatPipeline)
        throw runtimeError("setPointsExtent: this renderer was made without splat");
    if (extent.width == 0 || extent.height == 0)
        throw runtimeError("setPointsExtent: the target's extent must not be empty");
    destroyBuffer(device, r.splatBuffer);
    r.splatExtent = {0, 0};
    const VkDeviceSize pixelBytes = r.lines                 ? 2 * sizeof(uint32_t)
                                    : r.markers || r.glyphs ? sizeof(uint32_t)
                                    : r.packedSplat         ? sizeof(uint64_t)
                                    : r.splatFormat == 2    ? sizeof(uint32_t)
                                                            : 3 * sizeof(uint32_t);
    const VkDeviceSize bytes = VkDeviceSize(extent.width) * extent.height * pixelBytes;
    r.splatBuffer = createBuffer(
        device, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "points splat buffer");
    for (VkDescriptorSet set : r.slotSets) {
        writeBufferDescriptor(device, set, ESTUARY_BINDING_SPLAT, r.splatBuffer.handle, bytes);
        if (storageTarget)
            writeImageDescriptor(device, set, ESTUARY_BINDING_DRAW_TARGET,
                                 VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                                 {VK_NULL_HANDLE, storageTarget, VK_IMAGE_LAYOUT_GENERAL});
    }
    r.splatExtent = extent;
    r.storageTarget = storageTarget;
    r.splatNeedsClear = true;
}

std::optional<SplatVariant> splatVariantNamed(std::string_view name) {
    for (SplatVariant v : {SplatVariant::Packed, SplatVariant::Merged, SplatVariant::Saturated})
        if (name == splatVariantName(v)) return v;
    return std::nullopt;
}

const char* splatVariantName(SplatVariant variant) {
    switch (variant) {
    case SplatVariant::Packed:
        return "packed";
    case SplatVariant::Merged:
        return "merged";
    case SplatVariant::Saturated:
        return "saturated";
    }
    return "?";
}

uint32_t glyphCount(VkExtent3D image, uint32_t spacing) {
    const uint32_t s = std::max(spacing, 1u);
    return ((image.width + s - 1) / s) * ((image.height + s - 1) / s) *
           ((std::max(image.depth, 1u) + s - 1) / s);
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
    setOrbitPush(pc, extent, draw.view, draw.box);
    pc.pointSize = size;
    pc.valueMin = draw.valueMin;
    pc.valueMax = draw.valueMax;
    pc.colormapIndex = colormapCodeOf(*r.kit, draw.colormap, "recordPoints");
    pc.colormapCount = float(kColormapAtlasRows);
    pc.intensity = draw.intensity > 0.0f ? std::min(draw.intensity, 1.0f)
                                         : pointIntensity(extent, draw.count, size);
    pc.pointCountBits = std::bit_cast<float>(draw.count);
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
    pc.colormapIndex = colormapCodeOf(*r.kit, draw.colormap, "recordPoints");
    pc.colormapCount = float(kColormapAtlasRows);
    pc.intensity = draw.intensity > 0.0f ? std::min(draw.intensity, 1.0f)
                                         : pointIntensity(extent, draw.count, size);
    pc.pointCountBits = std::bit_cast<float>(draw.count);
    return pc;
}

// The resolve in place, the slot's set still bound from the splat: the target to GENERAL (after its
// colour writes), the splat's sums added by compute, back to COLOR_ATTACHMENT_OPTIMAL for whatever
// draws next.
void recordComputeResolve(const PointsRenderer& r, VkCommandBuffer cmd, VkExtent2D extent,
                          VkImage targetImage, const PointsDraw& draw) {
    if (!targetImage)
        throw runtimeError("recordPoints: the splat resolves into its storage target in place, "
                           "so it needs the target's image");
    const bool points = !r.markers && !r.glyphs && !r.lines;
    ImageTransition toGeneral;
    // Cleared by the resolve, the old content is not kept (nor, on NVIDIA, decompressed).
    toGeneral.oldLayout = draw.clearTarget && points ? VK_IMAGE_LAYOUT_UNDEFINED
                                                     : VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    toGeneral.newLayout = VK_IMAGE_LAYOUT_GENERAL;
    toGeneral.srcStage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
    toGeneral.srcAccess = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT;
    toGeneral.dstStage = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    toGeneral.dstAccess =
        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
    recordImageBarrier(cmd, targetImage, toGeneral);
    recordMemoryBarrier( // the splat's sums, then the resolve's reads and zeroes
        cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r.resolveComputePipeline);
    if (points) { // points_resolve.comp's own block over the draw's first members (used up)
        const float resolve[6] = {float(extent.width),     float(extent.height),
                                  draw.view.background[0], draw.view.background[1],
                                  draw.view.background[2], draw.clearTarget ? 1.0f : 0.0f};
        vkCmdPushConstants(cmd, r.pipelineLayout, kDrawPushStages, 0, sizeof(resolve), resolve);
    }
    // points_resolve.comp's groups are 32x8, the markers' and lines' resolves' 8x8.
    const uint32_t groupWidth = points ? 32 : 8;
    vkCmdDispatch(cmd, (extent.width + groupWidth - 1) / groupWidth, (extent.height + 7) / 8, 1);
    ImageTransition back;
    back.oldLayout = VK_IMAGE_LAYOUT_GENERAL;
    back.newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    back.srcStage = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    back.srcAccess = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
    back.dstStage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
    back.dstAccess = VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT;
    recordImageBarrier(cmd, targetImage, back);
}

// Clear the splat buffer where the last resolve did not (after it read it), splat, resolve onto
// the target.
void recordSplat(const PointsRenderer& r, VkCommandBuffer cmd, uint32_t slot, VkImageView target,
                 VkExtent2D extent, const PointsDraw& draw, VkImage targetImage) {
    if (extent.width != r.splatExtent.width || extent.height != r.splatExtent.height)
        throw runtimeError("recordPoints: the splat needs setPointsExtent of the target's size (" +
                           std::to_string(extent.width) + "x" + std::to_string(extent.height) +
                           ", set: " + std::to_string(r.splatExtent.width) + "x" +
                           std::to_string(r.splatExtent.height) + ")");
    // Only the points' compute resolve zeroes what it read (points_resolve.comp).
    const bool resolveClears = r.storageTarget && !r.markers && !r.glyphs && !r.lines;
    if (r.splatNeedsClear || !resolveClears) {
        recordMemoryBarrier(
            cmd, VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
            VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
            VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
        vkCmdFillBuffer(cmd, r.splatBuffer.handle, 0, VK_WHOLE_SIZE, 0);
        recordMemoryBarrier(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                            VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                            VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
                                VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
        // A command buffer submitted again repeats its fill; one never submitted would leave the
        // buffer uncleared, which no caller does (a recorded frame is submitted).
        r.splatNeedsClear = !resolveClears;
    } else { // the last resolve's zeroes (and reads) before this splat's atomics
        recordMemoryBarrier(
            cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
            VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
            VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
            VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    }
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r.splatPipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r.pipelineLayout, 0, 1,
                            &r.slotSets[slot], 0, nullptr);
    vkCmdDispatch(cmd, gridStrideGroups(draw.count), 1, 1);
    if (r.storageTarget) {
        recordComputeResolve(r, cmd, extent, targetImage, draw);
        return;
    }
    recordMemoryBarrier(
        cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
        VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    beginTargetPass(cmd, target, extent, draw.clearTarget, draw.view.background);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r.resolvePipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r.pipelineLayout, 0, 1,
                            &r.slotSets[slot], 0, nullptr);
    vkCmdDraw(cmd, 3, 1, 0, 0);
    vkCmdEndRendering(cmd);
}

// The points' block with the markers' three values after it.
template <class MarkerPush, class PointPush>
MarkerPush markerPush(const PointPush& points, const PointsDraw& draw) {
    static_assert(sizeof(MarkerPush) == sizeof(PointPush) + 4 * sizeof(float));
    MarkerPush pc{};
    std::memcpy(&pc, &points, sizeof(points));
    pc.markerShape = float(draw.markerShape);
    pc.markerFlagBits = std::bit_cast<float>(draw.markerFlags);
    pc.lineWidth = draw.lineWidth;
    pc.glyphSpacing = float(draw.glyphSpacing);
    return pc;
}

// The markers' splat keys a pixel by marker + 1 in 24 bits (markers_splat.glsl).
constexpr uint32_t kMaxSplatMarkers = (1u << 24) - 1;

// What a draw of the slot amounts to: its elements (points, markers, glyphs or segments; 0:
// nothing is drawn), the count its shaders read as pointCountBits (lines: the vertices) and the
// draw as pushed (the size clamped, the lines' flags the renderer's). Throws where recordPoints
// cannot draw it.
struct Elements {
    uint32_t count = 0, countBits = 0;
    PointsDraw draw;
};

// The elements (lines: vertices) every channel's buffer of the slot holds; the index channel aside.
uint32_t vertexCapacity(const PointsRenderer& r, uint32_t slot) {
    AttributeChannels vertexChannels = r.channels;
    vertexChannels[ESTUARY_CH_INDEX] = {};
    return attributeCapacity(vertexChannels,
                             channelBuffers(r.channels, r.mainBuffers[slot], r.ownBuffers[slot]));
}

Elements elementsOf(const PointsRenderer& r, uint32_t slot, const PointsDraw& draw) {
    Elements e;
    e.draw = draw;
    if (slot >= r.slotSets.size())
        throw runtimeError("recordPoints: slot " + std::to_string(slot) + " out of " +
                           std::to_string(r.slotSets.size()));
    (void)colormapCodeOf(*r.kit, draw.colormap, "recordPoints"); // before recording
    e.draw.size = std::max(draw.size, 0.0f);
    if (r.glyphs) {
        e.count = e.countBits = glyphCount(r.glyphExtents[slot], draw.glyphSpacing);
        if (e.count == 0)
            throw runtimeError("recordPoints: glyphs without an image (setGlyphImage)");
        return e;
    }
    if (draw.count == 0) return e;
    if (r.lines) {
        if (draw.markerShape > ESTUARY_LINE_STRIP)
            throw runtimeError("recordPoints: line topology " + std::to_string(draw.markerShape) +
                               " is neither segments (0) nor a strip (1)");
        const bool indexed = r.indexBytes[slot] > 0;
        const uint32_t vertices = vertexCapacity(r, slot);
        const VkDeviceSize available =
            indexed ? channelCapacity(r.channels[ESTUARY_CH_INDEX], r.indexBytes[slot]) : vertices;
        if (draw.count > available)
            throw runtimeError("recordPoints: " + std::to_string(draw.count) +
                               (indexed ? " indices" : " vertices") + " do not fit slot " +
                               std::to_string(slot) + "'s buffer (" + std::to_string(available) +
                               ")");
        e.count = draw.markerShape == ESTUARY_LINE_STRIP ? draw.count - 1 : draw.count / 2;
        e.draw.markerFlags = (draw.markerFlags & ESTUARY_LINE_FLAG_RGBA) |
                             (indexed ? ESTUARY_LINE_FLAG_INDEXED : 0u);
        e.countBits = vertices;
        return e;
    }
    const uint32_t capacity = vertexCapacity(r, slot);
    if (draw.count > capacity)
        throw runtimeError("recordPoints: " + std::to_string(draw.count) +
                           (r.markers ? " markers" : " points") + " do not fit slot " +
                           std::to_string(slot) + "'s buffers (" + std::to_string(capacity) + ")");
    if (r.markers && draw.markerShape > ESTUARY_MARKER_ARROW)
        throw runtimeError("recordPoints: marker shape " + std::to_string(draw.markerShape) +
                           " out of 0.." + std::to_string(ESTUARY_MARKER_ARROW));
    if (!r.markers) e.draw.size = std::clamp(draw.size, 1.0f, r.maxPointSize);
    e.count = e.countBits = draw.count;
    return e;
}

// The draw's push block, for every stage: the points', or the markers' (lines: `intensity` holds
// the segments' count, for the splat and the pick).
void pushElements(const PointsRenderer& r, VkCommandBuffer cmd, VkExtent2D extent,
                  const Elements& e) {
    const float size = e.draw.size;
    if (!r.markers && !r.glyphs && !r.lines) {
        if (r.threeD) {
            const Point3dPushConstants pc = push3d(r, extent, e.draw, size);
            vkCmdPushConstants(cmd, r.pipelineLayout, kDrawPushStages, 0, sizeof(pc), &pc);
        } else {
            const PointPushConstants pc = push2d(r, extent, e.draw, size);
            vkCmdPushConstants(cmd, r.pipelineLayout, kDrawPushStages, 0, sizeof(pc), &pc);
        }
        return;
    }
    if (r.threeD) {
        auto pc = markerPush<Marker3dPushConstants>(push3d(r, extent, e.draw, size), e.draw);
        pc.pointCountBits = std::bit_cast<float>(e.countBits);
        if (r.lines) pc.intensity = std::bit_cast<float>(e.count);
        vkCmdPushConstants(cmd, r.pipelineLayout, kDrawPushStages, 0, sizeof(pc), &pc);
    } else {
        auto pc = markerPush<MarkerPushConstants>(push2d(r, extent, e.draw, size), e.draw);
        pc.pointCountBits = std::bit_cast<float>(e.countBits);
        if (r.lines) pc.intensity = std::bit_cast<float>(e.count);
        vkCmdPushConstants(cmd, r.pipelineLayout, kDrawPushStages, 0, sizeof(pc), &pc);
    }
}

} // namespace

void recordPoints(const PointsRenderer& r, VkCommandBuffer cmd, uint32_t slot, VkImageView target,
                  VkExtent2D extent, const PointsDraw& draw, VkImage targetImage) {
    const Elements e = elementsOf(r, slot, draw);
    if (e.count == 0) {
        if (draw.clearTarget) { // nothing to draw over the cleared target
            beginTargetPass(cmd, target, extent, true, draw.view.background);
            vkCmdEndRendering(cmd);
        }
        return;
    }
    pushElements(r, cmd, extent, e);
    const bool quads = r.markers || r.glyphs || r.lines;
    // Markers, glyphs and segments by splat up to its capacity (and its key's), points always.
    if (r.splatPipeline && (!quads || e.count <= std::min(r.markerCapacity, kMaxSplatMarkers))) {
        PointsDraw splat = e.draw;
        splat.count = e.count;
        recordSplat(r, cmd, slot, target, extent, splat, targetImage);
        return;
    }
    beginTargetPass(cmd, target, extent, draw.clearTarget, draw.view.background);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r.pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r.pipelineLayout, 0, 1,
                            &r.slotSets[slot], 0, nullptr);
    if (quads)
        vkCmdDraw(cmd, 6, e.count, 0, 0); // a quad (two triangles) each
    else
        vkCmdDraw(cmd, e.count, 1, 0, 0);
    vkCmdEndRendering(cmd);
}

void preparePointsPick(const Device& device, PointsRenderer& r) {
    const VkSpecializationInfo channels = r.specialization.info();
    preparePick(device, r.pick, r.pipelineLayout, &channels);
}

void recordPointsPick(const PointsRenderer& r, VkCommandBuffer cmd, uint32_t slot,
                      VkExtent2D extent, const PointsDraw& draw, const PickQuery& query,
                      VkBuffer destination, VkDeviceSize offset) {
    const Elements e = elementsOf(r, slot, draw);
    pushElements(r, cmd, extent, e);
    recordPickPasses(r.pick, cmd, r.pipelineLayout, r.slotSets[slot], query, e.count, destination,
                     offset);
}

} // namespace estuary
