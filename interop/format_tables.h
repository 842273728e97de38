// Pure mappings from Vulkan image descriptions to what cudaExternalMemoryGetMappedMipmappedArray
// needs: channel format, extent and array flags. Tables follow the CUDA programming guide's Vulkan
// section (see ../shared/INTEROP_FACTS.md); no device is touched, so all of it is unit-tested on
// the CPU.
#pragma once

#include <cuda_runtime_api.h>
#include <vulkan/vulkan_core.h>

#include <optional>
#include <span>

namespace estuary::interop {

// The 21 formats of the guide's table plus R16G16B16A16_SFLOAT and R8G8B8A8_UNORM.
std::span<const VkFormat> shareableFormats();
std::optional<cudaChannelFormatDesc> channelFormatFor(VkFormat format);
const char* formatName(VkFormat format);

// Extent of the CUDA mipmapped array for a Vulkan image of `viewType` with the given base extent
// and array layer count. nullopt for view types the guide does not cover.
std::optional<cudaExtent> cudaExtentFor(VkImageViewType viewType, VkExtent3D extent,
                                        uint32_t arrayLayers);

// cudaArray* flags for the mapping: layered/cubemap from the view type, colour attachment from the
// usage, surface load/store when CUDA writes through surfaces.
unsigned int mipmappedArrayFlagsFor(VkImageViewType viewType, VkImageUsageFlags usage,
                                    bool surfaceLoadStore);

} // namespace estuary::interop
