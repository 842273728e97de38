#include "attributes.h"
#include "renderer_internal.h"

#include <algorithm>

namespace estuary {

namespace {

AttributeChannel mainChannel(uint32_t format, uint64_t offset, uint32_t stride) {
    return {format, offset, stride, false};
}

} // namespace

// Positions (and the markers' directions) read as whole vec4s where the layout allows, so the
// preset costs one 16-byte load as its `vec4 points[]` did; the shaders use only x, y (z).
AttributeChannels presetChannels(PresetLayout layout) {
    AttributeChannels c{};
    switch (layout) {
    case PresetLayout::Points2d:
        c[ESTUARY_CH_POSITION] = mainChannel(ESTUARY_ATTR_F32X4, 0, 16);
        c[ESTUARY_CH_DIRECTION] = mainChannel(ESTUARY_ATTR_F32X2, 8, 16);
        break;
    case PresetLayout::Points3d:
    case PresetLayout::Vertices:
        c[ESTUARY_CH_POSITION] = mainChannel(ESTUARY_ATTR_F32X4, 0, 16);
        c[ESTUARY_CH_VALUE] = mainChannel(ESTUARY_ATTR_F32, 12, 16);
        break;
    case PresetLayout::Markers:
        c[ESTUARY_CH_POSITION] = mainChannel(ESTUARY_ATTR_F32X4, 0, 32);
        c[ESTUARY_CH_VALUE] = mainChannel(ESTUARY_ATTR_F32, 12, 32);
        c[ESTUARY_CH_DIRECTION] = mainChannel(ESTUARY_ATTR_F32X4, 16, 32);
        c[ESTUARY_CH_SIZE] = mainChannel(ESTUARY_ATTR_F32, 28, 32);
        break;
    case PresetLayout::Labels:
        c[ESTUARY_CH_POSITION] = mainChannel(ESTUARY_ATTR_F32X3, 0, 16);
        c[ESTUARY_CH_INDEX] = mainChannel(ESTUARY_ATTR_U32, 12, 16);
        break;
    }
    return c;
}

uint32_t attributeFormatBytes(uint32_t format) {
    switch (format) {
    case ESTUARY_ATTR_F32:
    case ESTUARY_ATTR_UNORM8X4:
    case ESTUARY_ATTR_I32:
    case ESTUARY_ATTR_U32:
    case ESTUARY_ATTR_BITS:
        return 4;
    case ESTUARY_ATTR_F32X2:
        return 8;
    case ESTUARY_ATTR_F32X3:
        return 12;
    case ESTUARY_ATTR_F32X4:
        return 16;
    case ESTUARY_ATTR_F16:
        return 2;
    case ESTUARY_ATTR_F16X2:
        return 4;
    case ESTUARY_ATTR_F16X3:
        return 6;
    case ESTUARY_ATTR_F16X4:
        return 8;
    default:
        return 0;
    }
}

uint64_t channelCapacity(const AttributeChannel& c, uint64_t bytes) {
    const uint64_t size = attributeFormatBytes(c.format);
    if (size == 0 || c.stride == 0) return 0;
    if (c.offset > bytes || bytes - c.offset < size) return 0;
    return (bytes - c.offset - size) / c.stride + 1;
}

VkSpecializationInfo AttributeSpecialization::info() const {
    return {uint32_t(entries.size()), entries.data(), data.size() * sizeof(uint32_t), data.data()};
}

namespace {

bool isWords(uint32_t format) {
    return format != 0 && (format <= ESTUARY_ATTR_F32X4 || format >= ESTUARY_ATTR_UNORM8X4);
}

// 1 + 4 * source + first word where channel `c` lies inside channel `source`'s 16-byte load (both
// in the main buffer, in the same descriptor, the same stride); 0: nowhere.
uint32_t aliasOf(const AttributeChannels& channels, uint32_t c, VkDeviceSize alignment) {
    const AttributeChannel& ch = channels[c];
    if (!isWords(ch.format) || ch.ownBuffer) return 0;
    for (uint32_t s = 0; s < kAttributeChannels; ++s) {
        const AttributeChannel& source = channels[s];
        // As attributes.glsl decides: its offset past the descriptor's, and its stride, in vec4s.
        const bool quad = source.format == ESTUARY_ATTR_F32X4 &&
                          source.offset % alignment % 16 == 0 && source.stride % 16 == 0;
        if (s == c || !quad || source.ownBuffer || source.stride != ch.stride ||
            source.offset / alignment != ch.offset / alignment || ch.offset < source.offset)
            continue;
        const uint64_t first = (ch.offset - source.offset) / 4;
        if ((ch.offset - source.offset) % 4 == 0 &&
            first * 4 + attributeFormatBytes(ch.format) <= 16)
            return uint32_t(1 + 4 * s + first);
    }
    return 0;
}

} // namespace

void fillAttributeSpecialization(AttributeSpecialization& out, const AttributeChannels& channels,
                                 VkDeviceSize alignment) {
    alignment = std::max<VkDeviceSize>(alignment, 1);
    for (uint32_t i = 0; i < out.entries.size(); ++i)
        out.entries[i] = {ESTUARY_SPEC_ATTRIBUTES + i, uint32_t(i * sizeof(uint32_t)),
                          sizeof(uint32_t)};
    for (uint32_t c = 0; c < kAttributeChannels; ++c) {
        const AttributeChannel& ch = channels[c];
        out.data[3 * c] = ch.format;
        out.data[3 * c + 1] = uint32_t(ch.offset % alignment);
        out.data[3 * c + 2] = ch.stride;
        out.data[3 * kAttributeChannels + c] = aliasOf(channels, c, alignment);
    }
}

VkDescriptorSetLayoutBinding attributeBinding(VkShaderStageFlags stages) {
    return {ESTUARY_BINDING_ATTRIBUTES, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kAttributeChannels,
            stages, nullptr};
}

std::array<AttributeBuffer, kAttributeChannels>
channelBuffers(const AttributeChannels& channels, const AttributeBuffer& main,
               const std::array<AttributeBuffer, kAttributeChannels>& own) {
    std::array<AttributeBuffer, kAttributeChannels> buffers{};
    for (uint32_t c = 0; c < kAttributeChannels; ++c)
        buffers[c] = channels[c].ownBuffer ? own[c] : main;
    return buffers;
}

uint32_t attributeCapacity(const AttributeChannels& channels,
                           const std::array<AttributeBuffer, kAttributeChannels>& buffers) {
    uint64_t capacity = UINT32_MAX;
    for (uint32_t c = 0; c < kAttributeChannels; ++c)
        if (channels[c].format != 0)
            capacity = buffers[c].buffer
                           ? std::min(capacity, channelCapacity(channels[c], buffers[c].bytes))
                           : 0;
    return uint32_t(capacity);
}

void writeAttributeDescriptors(const Device& device, VkDescriptorSet set,
                               const AttributeChannels& channels,
                               const std::array<AttributeBuffer, kAttributeChannels>& buffers) {
    const auto known = std::find_if(buffers.begin(), buffers.end(),
                                    [](const AttributeBuffer& b) { return b.buffer != nullptr; });
    if (known == buffers.end()) return;
    const VkDeviceSize alignment =
        std::max<VkDeviceSize>(device.properties.limits.minStorageBufferOffsetAlignment, 1);
    std::array<VkDescriptorBufferInfo, kAttributeChannels> infos{};
    for (uint32_t c = 0; c < kAttributeChannels; ++c) {
        const bool bound = channels[c].format != 0 && buffers[c].buffer;
        const AttributeBuffer& b = bound ? buffers[c] : *known;
        VkDeviceSize offset = bound ? channels[c].offset / alignment * alignment : 0;
        // A channel that reads nothing (its capacity is 0) may start past its buffer's end: bind
        // it from 0, as count 0 never reads it.
        if (offset >= b.bytes) offset = 0;
        infos[c] = {b.buffer, offset, ((b.bytes + 3) & ~VkDeviceSize(3)) - offset};
    }
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = set;
    write.dstBinding = ESTUARY_BINDING_ATTRIBUTES;
    write.descriptorCount = kAttributeChannels;
    write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    write.pBufferInfo = infos.data();
    vkUpdateDescriptorSets(device.handle, 1, &write, 0, nullptr);
}

} // namespace estuary
