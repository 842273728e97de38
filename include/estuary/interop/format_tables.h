// Pure mappings from Vulkan image descriptions to what cudaExternalMemoryGetMappedMipmappedArray
// needs: channel format, extent and array flags. Tables follow the CUDA programming guide's Vulkan
// section (see ../shared/INTEROP_FACTS.md). No device is touched and no CUDA header is needed: the
// results are estuary's own plain structs whose values equal the CUDA runtime's (cuda_import.cpp
// converts them and checks that at compile time), so all of it is unit-tested in every build.
#pragma once

#ifndef VULKAN_CORE_H_
#include <vulkan/vulkan_core.h>
#endif

#include <cstddef>
#include <optional>
#include <vector>

namespace estuary::interop {

// cudaChannelFormatKind's three kinds, with its values.
enum class ChannelKind : int { Signed = 0, Unsigned = 1, Float = 2 };

// cudaChannelFormatDesc: bits per channel and their kind.
struct ChannelFormat {
    int x = 0, y = 0, z = 0, w = 0;
    ChannelKind kind = ChannelKind::Unsigned;
};

// cudaExtent of a mipmapped array (0 marks an absent dimension, as in CUDA).
struct ArrayExtent {
    size_t width = 0, height = 0, depth = 0;
};

// cudaArray* flag bits, with the CUDA runtime's values.
inline constexpr unsigned kArrayLayered = 0x01;
inline constexpr unsigned kArraySurfaceLoadStore = 0x02;
inline constexpr unsigned kArrayCubemap = 0x04;
inline constexpr unsigned kArrayColorAttachment = 0x20;

// The 21 formats of the guide's table plus R16G16B16A16_SFLOAT and R8G8B8A8_UNORM.
const std::vector<VkFormat>& shareableFormats();
std::optional<ChannelFormat> channelFormatFor(VkFormat format);
const char* formatName(VkFormat format);

// Extent of the CUDA mipmapped array for a Vulkan image of `viewType` with the given base extent
// and array layer count. nullopt for view types the guide does not cover.
std::optional<ArrayExtent> cudaExtentFor(VkImageViewType viewType, VkExtent3D extent,
                                         uint32_t arrayLayers);

// cudaArray* flags for the mapping: layered/cubemap from the view type, colour attachment from the
// usage, surface load/store when CUDA writes through surfaces.
unsigned int mipmappedArrayFlagsFor(VkImageViewType viewType, VkImageUsageFlags usage,
                                    bool surfaceLoadStore);

} // namespace estuary::interop
