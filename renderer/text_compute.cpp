// The text renderer's compute path (text.h, recordAnnotationsCompute): the quads of
// buildTextQuads binned into tiles (text_tiles.h), one dispatch of shaders/text_tiles.comp.
#include "renderer_internal.h"
#include "shared_layout.h"
#include "text_compute.h"
#include "text_tiles.h"
#include "vk_check.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace estuary {

namespace {

constexpr VkShaderStageFlags kCompute = VK_SHADER_STAGE_COMPUTE_BIT;

const std::array<VkDescriptorSetLayoutBinding, 5> kBindings{{
    {ESTUARY_BINDING_COLORMAP, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, kCompute, nullptr},
    {ESTUARY_BINDING_FONT, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, kCompute, nullptr},
    {ESTUARY_BINDING_TEXT_QUADS, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, kCompute, nullptr},
    {ESTUARY_BINDING_TEXT_TILES, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, kCompute, nullptr},
    {ESTUARY_BINDING_DRAW_TARGET, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, kCompute, nullptr},
}};

// The slot's tile buffer, made (again) to hold `words`; its set pointed at it.
void ensureTiles(const Device& device, TextRenderer& r, uint32_t slot, size_t words) {
    const VkDeviceSize bytes = std::max<VkDeviceSize>(words, 4) * sizeof(uint32_t);
    if (r.tiles[slot].handle && r.tiles[slot].size >= bytes) return;
    const VkDeviceSize before = r.tiles[slot].size;
    destroyBuffer(device, r.tiles[slot]);
    r.tiles[slot] = createBuffer(
        device, std::max<VkDeviceSize>(bytes, 2 * before), // grows by doubling
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, "text tiles");
    writeBufferDescriptor(device, r.computeSets[slot], ESTUARY_BINDING_TEXT_TILES,
                          r.tiles[slot].handle, VK_WHOLE_SIZE);
}

} // namespace

void createTextCompute(const Device& device, TextRenderer& r, const std::filesystem::path& dataDir,
                       uint32_t slotCount) {
    VkDescriptorSetLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    layoutInfo.bindingCount = uint32_t(kBindings.size());
    layoutInfo.pBindings = kBindings.data();
    VK_CHECK(vkCreateDescriptorSetLayout(device.handle, &layoutInfo, nullptr, &r.computeSetLayout));
    nameObject(device, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, r.computeSetLayout,
               "text tiles set layout");
    r.computeSets = allocateKitSets(device, *r.kit, r.computeSetLayout, kBindings, slotCount);
    const VkDescriptorImageInfo colormaps{r.kit->colormapSampler, r.kit->atlas.view,
                                          VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    const VkDescriptorImageInfo font{r.kit->colormapSampler, r.font.image.view,
                                     VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    r.tiles.resize(slotCount);
    r.computeTargets.assign(slotCount, VK_NULL_HANDLE);
    for (uint32_t slot = 0; slot < slotCount; ++slot) {
        const VkDescriptorSet set = r.computeSets[slot];
        writeImageDescriptor(device, set, ESTUARY_BINDING_COLORMAP,
                             VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, colormaps);
        writeImageDescriptor(device, set, ESTUARY_BINDING_FONT,
                             VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, font);
        writeBufferDescriptor(device, set, ESTUARY_BINDING_TEXT_QUADS, r.quads[slot].handle,
                              VkDeviceSize(r.quadCapacity) * sizeof(TextQuad));
        ensureTiles(device, r, slot, 4096);
    }
    r.binning = std::make_shared<TextTiles>();
    r.computeLayout = createPushLayout(device, r.computeSetLayout, kCompute, "text tiles layout");
    r.computePipeline =
        createComputePipeline(device, &r.kit->pipelineCache, r.computeLayout,
                              shaderPath(dataDir, "text_tiles.comp"), nullptr, "text tiles");
}

void destroyTextCompute(const Device& device, TextRenderer& r) {
    vkDestroyPipeline(device.handle, r.computePipeline, nullptr);
    vkDestroyPipelineLayout(device.handle, r.computeLayout, nullptr);
    for (GpuBuffer& b : r.tiles)
        destroyBuffer(device, b);
    if (r.kit) freeKitSets(device, *r.kit, r.computeSets);
    vkDestroyDescriptorSetLayout(device.handle, r.computeSetLayout, nullptr);
    r.computePipeline = VK_NULL_HANDLE;
    r.computeLayout = VK_NULL_HANDLE;
    r.computeSetLayout = VK_NULL_HANDLE;
    r.tiles.clear();
    r.computeTargets.clear();
}

void recordAnnotationsCompute(const Device& device, TextRenderer& r, VkCommandBuffer cmd,
                              uint32_t slot, VkImageView target, VkExtent2D extent,
                              std::span<const AnnotationPanel> panels) {
    if (!r.computePipeline)
        throw runtimeError("recordAnnotationsCompute: the text renderer was made without "
                           "TextDesc::compute");
    if (slot >= r.computeSets.size())
        throw runtimeError("recordAnnotationsCompute: slot " + std::to_string(slot) + " out of " +
                           std::to_string(r.computeSets.size()));
    // All panels' quads one after another, each naming its panel's clip.
    auto* quads = static_cast<TextQuad*>(r.quads[slot].mapped);
    uint32_t used = 0;
    r.clips.clear();
    for (const AnnotationPanel& panel : panels) {
        VkRect2D scissor{};
        const uint32_t count = buildPanelQuads(r, extent, panel, used, scissor);
        if (count == 0) continue;
        const float clip = std::bit_cast<float>(uint32_t(r.clips.size()));
        for (uint32_t i = 0; i < count; ++i)
            r.scratch[i].extra[1] = clip;
        r.clips.push_back(scissor);
        std::memcpy(quads + used, r.scratch.data(), count * sizeof(TextQuad));
        used += count;
    }
    if (used == 0) return;
    TextTiles& tiles = *r.binning;
    binTextQuads({quads, used}, r.clips, extent, tiles);
    if (tiles.tileCount == 0) return;
    ensureTiles(device, r, slot, tiles.words.size());
    std::memcpy(r.tiles[slot].mapped, tiles.words.data(), tiles.words.size() * sizeof(uint32_t));
    if (r.computeTargets[slot] != target) { // the slot's earlier work is done: its set is free
        writeImageDescriptor(device, r.computeSets[slot], ESTUARY_BINDING_DRAW_TARGET,
                             VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                             {VK_NULL_HANDLE, target, VK_IMAGE_LAYOUT_GENERAL});
        r.computeTargets[slot] = target;
    }
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r.computePipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r.computeLayout, 0, 1,
                            &r.computeSets[slot], 0, nullptr);
    const TextTilesPushConstants pc{
        float(extent.width), float(extent.height), std::bit_cast<float>(tiles.clipBase),
        std::bit_cast<float>(tiles.indexBase), std::bit_cast<float>(tiles.tileCount)};
    vkCmdPushConstants(cmd, r.computeLayout, kCompute, 0, sizeof(pc), &pc);
    // One workgroup a tile: a 16k-wide picture has 1M tiles, past the 65535 groups a dimension
    // is sure to take, so they go in rows.
    constexpr uint32_t kRow = 65535;
    const uint32_t rows = (tiles.tileCount + kRow - 1) / kRow;
    vkCmdDispatch(cmd, std::min(tiles.tileCount, kRow), rows, 1);
}

void recordStorageBegin(VkCommandBuffer cmd, VkImage image) {
    ImageTransition t;
    t.oldLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    t.newLayout = VK_IMAGE_LAYOUT_GENERAL;
    t.srcStage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT |
                 VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
    t.srcAccess = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT |
                  VK_ACCESS_2_TRANSFER_WRITE_BIT;
    t.dstStage = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    t.dstAccess = VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
    recordImageBarrier(cmd, image, t);
}

void recordStorageBetween(VkCommandBuffer cmd) {
    recordMemoryBarrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
}

void recordStorageEnd(VkCommandBuffer cmd, VkImage image) {
    ImageTransition t;
    t.oldLayout = VK_IMAGE_LAYOUT_GENERAL;
    t.newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    t.srcStage = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    t.srcAccess = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
    t.dstStage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
    t.dstAccess = VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT;
    recordImageBarrier(cmd, image, t);
}

} // namespace estuary
