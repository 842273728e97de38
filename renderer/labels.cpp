// The labels renderer (labels.h): the strings' glyph runs laid out once, one instanced draw a
// frame.
#include "labels.h"
#include "labels_internal.h"
#include "renderer_internal.h"
#include "shared_layout.h"
#include "vk_check.h"
#include "volume_camera.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace estuary {

std::vector<uint32_t> labelRuns(const FontAtlas& font, const std::vector<std::string>& strings,
                                AlignX alignX, AlignY alignY, uint32_t& maxGlyphs) {
    std::vector<std::vector<PlacedGlyph>> laid(strings.size());
    size_t glyphs = 0;
    for (size_t s = 0; s < strings.size(); ++s) {
        font.layout(strings[s], 1.0f, alignX, alignY, laid[s]);
        glyphs += laid[s].size();
    }
    // A uvec4 a string, then two uvec4s a glyph.
    std::vector<uint32_t> table(4 * (strings.size() + 2 * glyphs), 0u);
    uint32_t next = uint32_t(strings.size());
    maxGlyphs = 0;
    for (size_t s = 0; s < strings.size(); ++s) {
        table[4 * s + 0] = next;
        table[4 * s + 1] = uint32_t(laid[s].size());
        maxGlyphs = std::max(maxGlyphs, uint32_t(laid[s].size()));
        for (const PlacedGlyph& g : laid[s]) {
            const float entry[8] = {g.x0, g.y0, g.x1, g.y1, g.u0, g.v0, g.u1, g.v1};
            for (int i = 0; i < 8; ++i)
                table[4 * size_t(next) + size_t(i)] = std::bit_cast<uint32_t>(entry[i]);
            next += 2;
        }
    }
    return table;
}

bool placeAnchor(const PointsDraw& place, VkExtent2D extent, bool threeD,
                 const std::array<float, 3>& position, float& x, float& y) {
    const float w = float(extent.width), h = float(extent.height);
    if (threeD) {
        const OrbitCamera camera = orbitCamera(place.view.yaw, place.view.pitch, place.view.zoom,
                                               extent.width, extent.height);
        const auto& b = place.box;
        const float side = std::max({b[3] - b[0], b[4] - b[1], b[5] - b[2]});
        const float invScale = side > 0.0f ? 1.0f / side : 1.0f;
        std::array<float, 3> d{};
        for (size_t i = 0; i < 3; ++i)
            d[i] = (position[i] - 0.5f * (b[i] + b[i + 3])) * invScale - camera.eye[i];
        const auto dot = [](const std::array<float, 3>& a, const std::array<float, 3>& c) {
            return a[0] * c[0] + a[1] * c[1] + a[2] * c[2];
        };
        const float t = dot(d, camera.forward);
        if (!(t > 1e-4f)) return false;
        const float ndcX = dot(d, camera.right) / dot(camera.right, camera.right) / t;
        const float ndcY = -dot(d, camera.up) / dot(camera.up, camera.up) / t;
        x = (ndcX + 1.0f) * 0.5f * w;
        y = (ndcY + 1.0f) * 0.5f * h;
        return std::isfinite(x) && std::isfinite(y);
    }
    const float fw = float(place.domain.width), fh = float(place.domain.height);
    const float pixelsPerTexel = std::min(w / fw, h / fh) * place.view.zoom;
    const float u = position[0] * place.uvScale[0] + place.uvOffset[0];
    const float v = position[1] * place.uvScale[1] + place.uvOffset[1];
    x = (u - 0.5f - place.view.panX) * fw * pixelsPerTexel + 0.5f * w;
    y = (v - 0.5f - place.view.panY) * fh * pixelsPerTexel + 0.5f * h;
    return std::isfinite(x) && std::isfinite(y);
}

LabelsRenderer createLabelsRenderer(const Device& device, const LabelsDesc& desc) {
    if (desc.slotCount == 0) throw runtimeError("createLabelsRenderer: slotCount must be >= 1");
    LabelsRenderer r;
    r.kit = &requireKit(desc.kit, "createLabelsRenderer");
    r.threeD = desc.threeD;
    r.channels = desc.channels;
    fillAttributeSpecialization(r.specialization, r.channels,
                                device.properties.limits.minStorageBufferOffsetAlignment);
    r.mainBuffers.assign(desc.slotCount, AttributeBuffer{});
    r.ownBuffers.assign(desc.slotCount, {});
    try {
        r.font = createFontImage(device, desc.dataDir, desc.fontFile);
        std::vector<uint32_t> table =
            labelRuns(*r.font.atlas, desc.strings, desc.alignX, desc.alignY, r.maxGlyphs);
        if (table.empty()) table.assign(4, 0u); // no strings: a buffer all the same
        r.stringCount = uint32_t(desc.strings.size());
        const VkDeviceSize tableBytes = table.size() * sizeof(uint32_t);
        r.runs =
            createBuffer(device, tableBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                         "label glyph runs");
        std::memcpy(r.runs.mapped, table.data(), tableBytes);

        // The compute path's passes read the font, the runs and the channels too, and write the
        // coverage and the picture.
        const VkShaderStageFlags compute =
            desc.compute ? VkShaderStageFlags(VK_SHADER_STAGE_COMPUTE_BIT) : 0u;
        std::vector<VkDescriptorSetLayoutBinding> bindings{
            {ESTUARY_BINDING_COLORMAP, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1,
             VK_SHADER_STAGE_FRAGMENT_BIT, nullptr},
            {ESTUARY_BINDING_FONT, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1,
             VK_SHADER_STAGE_FRAGMENT_BIT | compute, nullptr},
            {ESTUARY_BINDING_LABEL_RUNS, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
             VK_SHADER_STAGE_VERTEX_BIT | compute, nullptr},
            attributeBinding(VK_SHADER_STAGE_VERTEX_BIT | compute),
        };
        if (desc.compute) {
            bindings.push_back({ESTUARY_BINDING_LABEL_COVERAGE, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                1, compute, nullptr});
            bindings.push_back({ESTUARY_BINDING_DRAW_TARGET, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1,
                                compute, nullptr});
        }
        VkDescriptorSetLayoutCreateInfo layoutInfo{
            VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
        layoutInfo.bindingCount = uint32_t(bindings.size());
        layoutInfo.pBindings = bindings.data();
        VK_CHECK(vkCreateDescriptorSetLayout(device.handle, &layoutInfo, nullptr, &r.setLayout));
        nameObject(device, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, r.setLayout, "labels set layout");
        r.slotSets = allocateKitSets(device, *r.kit, r.setLayout, bindings, desc.slotCount);
        const VkDescriptorImageInfo colormaps{r.kit->colormapSampler, r.kit->atlas.view,
                                              VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
        const VkDescriptorImageInfo font{r.kit->colormapSampler, r.font.image.view,
                                         VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
        for (VkDescriptorSet set : r.slotSets) {
            writeImageDescriptor(device, set, ESTUARY_BINDING_COLORMAP,
                                 VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, colormaps);
            writeImageDescriptor(device, set, ESTUARY_BINDING_FONT,
                                 VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, font);
            writeBufferDescriptor(device, set, ESTUARY_BINDING_LABEL_RUNS, r.runs.handle,
                                  tableBytes);
        }
        const VkShaderStageFlags both = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
        r.pipelineLayout = createPushLayout(device, r.setLayout, both, "labels layout");
        PipelineShape shape;
        shape.vertexShader = desc.threeD ? "labels3d.vert" : "labels.vert";
        shape.fragmentShader = "text.frag";
        shape.alphaBlend = true;
        const VkSpecializationInfo channels = r.specialization.info();
        shape.vertexSpecialization = &channels;
        shape.name = desc.threeD ? "3D labels pipeline" : "labels pipeline";
        r.pipeline = createGraphicsPipeline(device, &r.kit->pipelineCache, desc.targetFormat,
                                            r.pipelineLayout, desc.dataDir, shape);
        if (desc.compute) createLabelsCompute(device, r, desc.dataDir);
    } catch (...) {
        destroyLabelsRenderer(device, r);
        throw;
    }
    return r;
}

void destroyLabelsRenderer(const Device& device, LabelsRenderer& r) {
    destroyLabelsCompute(device, r);
    vkDestroyPipeline(device.handle, r.pipeline, nullptr);
    vkDestroyPipelineLayout(device.handle, r.pipelineLayout, nullptr);
    if (r.kit) freeKitSets(device, *r.kit, r.slotSets);
    vkDestroyDescriptorSetLayout(device.handle, r.setLayout, nullptr);
    destroyBuffer(device, r.runs);
    destroyFontImage(device, r.font);
    r = LabelsRenderer{};
}

void setLabelsBuffer(const Device& device, LabelsRenderer& r, uint32_t slot, VkBuffer buffer,
                     VkDeviceSize bytes) {
    if (slot >= r.slotSets.size())
        throw runtimeError("setLabelsBuffer: slot " + std::to_string(slot) + " out of " +
                           std::to_string(r.slotSets.size()));
    r.mainBuffers[slot] = {buffer, bytes};
    writeAttributeDescriptors(device, r.slotSets[slot], r.channels,
                              channelBuffers(r.channels, r.mainBuffers[slot], r.ownBuffers[slot]));
}

void setLabelsAttributeBuffer(const Device& device, LabelsRenderer& r, uint32_t slot,
                              uint32_t channel, VkBuffer buffer, VkDeviceSize bytes) {
    if (slot >= r.slotSets.size() || channel >= kAttributeChannels ||
        !r.channels[channel].ownBuffer)
        throw runtimeError("setLabelsAttributeBuffer: slot " + std::to_string(slot) + ", channel " +
                           std::to_string(channel) +
                           ": not a slot, or a channel without its own buffer");
    r.ownBuffers[slot][channel] = {buffer, buffer ? bytes : 0};
    writeAttributeDescriptors(device, r.slotSets[slot], r.channels,
                              channelBuffers(r.channels, r.mainBuffers[slot], r.ownBuffers[slot]));
}

uint32_t packLabelColour(const Rgba& colour) {
    uint32_t bits = 0;
    for (int i = 0; i < 4; ++i)
        bits |= uint32_t(std::lround(std::clamp(colour[size_t(i)], 0.0f, 1.0f) * 255.0f))
                << (8 * i);
    return bits;
}

namespace {

template <class Push>
void setLabelMembers(Push& pc, const LabelsRenderer& r, const LabelsDraw& draw, uint32_t count) {
    pc.sizePixels = draw.sizePixels;
    pc.offsetX = draw.offsetX;
    pc.offsetY = draw.offsetY;
    pc.colourBits = std::bit_cast<float>(packLabelColour(draw.color));
    pc.labelCountBits = std::bit_cast<float>(count);
    pc.stringCountBits = std::bit_cast<float>(r.stringCount);
    pc.maxGlyphsBits = std::bit_cast<float>(r.maxGlyphs);
}

} // namespace

void pushLabels(const LabelsRenderer& r, VkCommandBuffer cmd, VkPipelineLayout layout,
                VkShaderStageFlags stages, VkExtent2D extent, const LabelsDraw& draw,
                uint32_t count, const LabelsComputeMembers& compute) {
    const PointsDraw& place = draw.place;
    const auto setCompute = [&](auto& pc) {
        pc.areaX = compute.areaX, pc.areaY = compute.areaY;
        pc.pictureWidth = compute.pictureWidth, pc.pictureHeight = compute.pictureHeight;
    };
    if (r.threeD) {
        Labels3dPushConstants pc{};
        setOrbitPush(pc, extent, place.view, place.box);
        setLabelMembers(pc, r, draw, count);
        setCompute(pc);
        vkCmdPushConstants(cmd, layout, stages, 0, sizeof(pc), &pc);
    } else {
        LabelsPushConstants pc{};
        pc.targetWidth = float(extent.width);
        pc.targetHeight = float(extent.height);
        pc.fieldWidth = float(place.domain.width);
        pc.fieldHeight = float(place.domain.height);
        pc.panX = place.view.panX;
        pc.panY = place.view.panY;
        pc.zoom = place.view.zoom;
        pc.uvScaleX = place.uvScale[0];
        pc.uvScaleY = place.uvScale[1];
        pc.uvOffsetX = place.uvOffset[0];
        pc.uvOffsetY = place.uvOffset[1];
        setLabelMembers(pc, r, draw, count);
        setCompute(pc);
        vkCmdPushConstants(cmd, layout, stages, 0, sizeof(pc), &pc);
    }
}

void recordLabelsInPass(LabelsRenderer& r, VkCommandBuffer cmd, uint32_t slot, VkRect2D area,
                        VkExtent2D picture, const LabelsDraw& draw) {
    if (slot >= r.slotSets.size())
        throw runtimeError("recordLabels: slot " + std::to_string(slot) + " out of " +
                           std::to_string(r.slotSets.size()));
    const uint32_t capacity = attributeCapacity(
        r.channels, channelBuffers(r.channels, r.mainBuffers[slot], r.ownBuffers[slot]));
    const uint32_t count = std::min(draw.count, capacity);
    if (count == 0 || r.maxGlyphs == 0 || !(draw.sizePixels > 0.0f) || area.extent.width == 0 ||
        area.extent.height == 0)
        return;
    // One vertex range, six vertices a glyph slot: warps stay full (an instance of six vertices
    // would fill a fifth of one).
    const uint64_t vertices = uint64_t(count) * r.maxGlyphs * 6u;
    if (vertices > UINT32_MAX)
        throw runtimeError("recordLabels: " + std::to_string(count) + " labels of up to " +
                           std::to_string(r.maxGlyphs) + " glyphs are more quads than one draw " +
                           "takes");
    const VkExtent2D extent = area.extent;
    const VkShaderStageFlags both = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
    const VkViewport viewport{float(area.offset.x),
                              float(area.offset.y),
                              float(extent.width),
                              float(extent.height),
                              0.0f,
                              1.0f};
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    const VkRect2D scissor = clipRect(picture, area, {0, 0, 0, 0});
    if (scissor.extent.width == 0 || scissor.extent.height == 0) return;
    vkCmdSetScissor(cmd, 0, 1, &scissor);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r.pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r.pipelineLayout, 0, 1,
                            &r.slotSets[slot], 0, nullptr);
    pushLabels(r, cmd, r.pipelineLayout, both, extent, draw, count, {});
    vkCmdDraw(cmd, uint32_t(vertices), 1, 0, 0);
}

void recordLabels(LabelsRenderer& r, VkCommandBuffer cmd, uint32_t slot, VkImageView target,
                  VkExtent2D extent, const LabelsDraw& draw) {
    recordFontUpload(r.font, cmd);
    beginTargetPass(cmd, target, extent, false, draw.place.view.background);
    recordLabelsInPass(r, cmd, slot, {{0, 0}, extent}, extent, draw);
    vkCmdEndRendering(cmd);
}

} // namespace estuary
