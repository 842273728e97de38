// Buffer views' channels on the renderer's side: what shaders/attributes.glsl reads of each
// channel (format, offset, stride: specialization constants of the view's pipelines) and the
// descriptor array that binds each channel's buffer. Today's fixed layouts are presets of it. Pure
// functions but for the descriptor writes; the points' and meshes' renderers own the channels.
#pragma once

#include "resources.h"
#include "shared_layout.h"

#include <array>
#include <cstdint>

namespace estuary {

inline constexpr uint32_t kAttributeChannels = ESTUARY_ATTRIBUTE_CHANNELS;

// One channel as the shaders read it: format (ESTUARY_ATTR_*; 0: not read, its default), the
// byte offset of element 0 in its buffer, the stride in bytes, and whose buffer it is: the view's
// main one (setPointsBuffer's) or the channel's own (setAttributeBuffer's).
struct AttributeChannel {
    uint32_t format = 0;
    uint64_t offset = 0;
    uint32_t stride = 0;
    bool ownBuffer = false;
};
using AttributeChannels = std::array<AttributeChannel, kAttributeChannels>;

// The element layouts the views had before attribute descriptors: 2D points vec4 (x, y, vx, vy),
// 3D points vec4 (x, y, z, s), markers 32 bytes (x, y, z, value, dx, dy, dz, size), lines' and
// meshes' vertices vec4 (x, y, z, value); labels' anchors 16 bytes (x, y, z, uint32 string index);
// all in the main buffer.
enum class PresetLayout { Points2d, Points3d, Markers, Vertices, Labels };
AttributeChannels presetChannels(PresetLayout layout);

// Bytes of one element of `format` (0: not a format).
uint32_t attributeFormatBytes(uint32_t format);

// The elements a buffer of `bytes` holds of channel `c` (read).
uint64_t channelCapacity(const AttributeChannel& c, uint64_t bytes);

// The specialization constants attributes.glsl declares, for channels whose descriptors are bound
// at their offsets rounded down to `alignment` (minStorageBufferOffsetAlignment): each channel's
// format, offset past its descriptor's and stride, and where a channel of the main buffer lies
// inside another's 16-byte load (a preset's value in its position's vec4), so the two share it. A
// pipeline takes info(), which points into this struct.
struct AttributeSpecialization {
    std::array<VkSpecializationMapEntry, 4 * kAttributeChannels> entries{};
    std::array<uint32_t, 4 * kAttributeChannels> data{};
    VkSpecializationInfo info() const;
};
void fillAttributeSpecialization(AttributeSpecialization& out, const AttributeChannels& channels,
                                 VkDeviceSize alignment);

// The set layout's binding: the channels' buffers, one array of storage buffers.
VkDescriptorSetLayoutBinding attributeBinding(VkShaderStageFlags stages);

// A buffer (or VK_NULL_HANDLE: not known yet) and its size.
struct AttributeBuffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize bytes = 0;
};

// The buffer each channel reads: its own, or `main`.
std::array<AttributeBuffer, kAttributeChannels>
channelBuffers(const AttributeChannels& channels, const AttributeBuffer& main,
               const std::array<AttributeBuffer, kAttributeChannels>& own);

// The elements every read channel's buffer holds (UINT32_MAX at most; 0 when one is not known).
uint32_t attributeCapacity(const AttributeChannels& channels,
                           const std::array<AttributeBuffer, kAttributeChannels>& buffers);

// Points `set`'s array at each channel's buffer from its offset rounded down to the device's
// alignment, to its size rounded up to whole 4-byte words (the shaders read a half-float with
// its word: buffers must be allocated so); channels not read, or whose buffer is not known yet, at
// the first known one. Writes nothing while no buffer is known. Only while no submitted work using
// the set is in flight.
void writeAttributeDescriptors(const Device& device, VkDescriptorSet set,
                               const AttributeChannels& channels,
                               const std::array<AttributeBuffer, kAttributeChannels>& buffers);

} // namespace estuary
