#include "estuary/interop/format_tables.h"

#include <array>

namespace estuary::interop {
namespace {

struct FormatRow {
    VkFormat format;
    const char* name;
    int x, y, z, w;
    ChannelKind kind;
};

constexpr auto U = ChannelKind::Unsigned;
constexpr auto S = ChannelKind::Signed;
constexpr auto F = ChannelKind::Float;

// Normalised reads of R8G8B8A8_UNORM go through a texture object with cudaReadModeNormalizedFloat;
// the array itself holds unsigned 8-bit channels.
constexpr std::array<FormatRow, 23> kFormats{{
    {VK_FORMAT_R8_UINT, "R8_UINT", 8, 0, 0, 0, U},
    {VK_FORMAT_R8_SINT, "R8_SINT", 8, 0, 0, 0, S},
    {VK_FORMAT_R8G8_UINT, "R8G8_UINT", 8, 8, 0, 0, U},
    {VK_FORMAT_R8G8_SINT, "R8G8_SINT", 8, 8, 0, 0, S},
    {VK_FORMAT_R8G8B8A8_UINT, "R8G8B8A8_UINT", 8, 8, 8, 8, U},
    {VK_FORMAT_R8G8B8A8_SINT, "R8G8B8A8_SINT", 8, 8, 8, 8, S},
    {VK_FORMAT_R16_UINT, "R16_UINT", 16, 0, 0, 0, U},
    {VK_FORMAT_R16_SINT, "R16_SINT", 16, 0, 0, 0, S},
    {VK_FORMAT_R16G16_UINT, "R16G16_UINT", 16, 16, 0, 0, U},
    {VK_FORMAT_R16G16_SINT, "R16G16_SINT", 16, 16, 0, 0, S},
    {VK_FORMAT_R16G16B16A16_UINT, "R16G16B16A16_UINT", 16, 16, 16, 16, U},
    {VK_FORMAT_R16G16B16A16_SINT, "R16G16B16A16_SINT", 16, 16, 16, 16, S},
    {VK_FORMAT_R32_UINT, "R32_UINT", 32, 0, 0, 0, U},
    {VK_FORMAT_R32_SINT, "R32_SINT", 32, 0, 0, 0, S},
    {VK_FORMAT_R32_SFLOAT, "R32_SFLOAT", 32, 0, 0, 0, F},
    {VK_FORMAT_R32G32_UINT, "R32G32_UINT", 32, 32, 0, 0, U},
    {VK_FORMAT_R32G32_SINT, "R32G32_SINT", 32, 32, 0, 0, S},
    {VK_FORMAT_R32G32_SFLOAT, "R32G32_SFLOAT", 32, 32, 0, 0, F},
    {VK_FORMAT_R32G32B32A32_UINT, "R32G32B32A32_UINT", 32, 32, 32, 32, U},
    {VK_FORMAT_R32G32B32A32_SINT, "R32G32B32A32_SINT", 32, 32, 32, 32, S},
    {VK_FORMAT_R32G32B32A32_SFLOAT, "R32G32B32A32_SFLOAT", 32, 32, 32, 32, F},
    {VK_FORMAT_R16G16B16A16_SFLOAT, "R16G16B16A16_SFLOAT", 16, 16, 16, 16, F},
    {VK_FORMAT_R8G8B8A8_UNORM, "R8G8B8A8_UNORM", 8, 8, 8, 8, U},
}};

constexpr std::array<VkFormat, kFormats.size()> kFormatList = [] {
    std::array<VkFormat, kFormats.size()> list{};
    for (size_t i = 0; i < kFormats.size(); ++i)
        list[i] = kFormats[i].format;
    return list;
}();

const FormatRow* findRow(VkFormat format) {
    for (const auto& row : kFormats)
        if (row.format == format) return &row;
    return nullptr;
}

} // namespace

const std::vector<VkFormat>& shareableFormats() {
    static const std::vector<VkFormat> list(kFormatList.begin(), kFormatList.end());
    return list;
}

std::optional<ChannelFormat> channelFormatFor(VkFormat format) {
    const FormatRow* row = findRow(format);
    if (!row) return std::nullopt;
    return ChannelFormat{row->x, row->y, row->z, row->w, row->kind};
}

const char* formatName(VkFormat format) {
    const FormatRow* row = findRow(format);
    return row ? row->name : "(a format estuary does not share with CUDA)";
}

std::optional<ArrayExtent> cudaExtentFor(VkImageViewType viewType, VkExtent3D extent,
                                         uint32_t arrayLayers) {
    switch (viewType) {
    case VK_IMAGE_VIEW_TYPE_1D:
        return ArrayExtent{extent.width, 0, 0};
    case VK_IMAGE_VIEW_TYPE_2D:
        return ArrayExtent{extent.width, extent.height, 0};
    case VK_IMAGE_VIEW_TYPE_3D:
        return ArrayExtent{extent.width, extent.height, extent.depth};
    case VK_IMAGE_VIEW_TYPE_CUBE:
    case VK_IMAGE_VIEW_TYPE_2D_ARRAY:
    case VK_IMAGE_VIEW_TYPE_CUBE_ARRAY:
        return ArrayExtent{extent.width, extent.height, arrayLayers};
    case VK_IMAGE_VIEW_TYPE_1D_ARRAY:
        return ArrayExtent{extent.width, 0, arrayLayers};
    default:
        return std::nullopt;
    }
}

unsigned int mipmappedArrayFlagsFor(VkImageViewType viewType, VkImageUsageFlags usage,
                                    bool surfaceLoadStore) {
    unsigned int flags = 0;
    switch (viewType) {
    case VK_IMAGE_VIEW_TYPE_CUBE:
        flags |= kArrayCubemap;
        break;
    case VK_IMAGE_VIEW_TYPE_CUBE_ARRAY:
        flags |= kArrayCubemap | kArrayLayered;
        break;
    case VK_IMAGE_VIEW_TYPE_1D_ARRAY:
    case VK_IMAGE_VIEW_TYPE_2D_ARRAY:
        flags |= kArrayLayered;
        break;
    default:
        break;
    }
    if (usage & VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT) flags |= kArrayColorAttachment;
    if (surfaceLoadStore) flags |= kArraySurfaceLoadStore;
    return flags;
}

} // namespace estuary::interop
