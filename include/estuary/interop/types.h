// The plain Vulkan-handle structs interop hands out and the rest of estuary shares: an image (of
// any shape CUDA maps, with a view over all its levels) and a buffer, the shape of an image, the
// pure rules about shapes and mip chains, and the move-only base of owning structs. No functions
// that touch a device; C++17; includes the Vulkan types from <vulkan/vulkan_core.h> unless the
// includer's own Vulkan header (vulkan.h, volk.h) came first.
#pragma once

#ifndef VULKAN_CORE_H_
#include <vulkan/vulkan_core.h>
#endif

#include <algorithm>
#include <cstdint>
#include <string>

namespace estuary {

// Base of the structs that own GPU objects (GpuImage, ExportedImage, rings, ...): they may be
// moved (into a vector, out of a create function) but never copied, so no two copies can both be
// destroyed. A move copies the handles: the moved-from struct is dropped, not destroyed.
struct MoveOnly {
    MoveOnly() = default;
    MoveOnly(const MoveOnly&) = delete;
    MoveOnly& operator=(const MoveOnly&) = delete;
    MoveOnly(MoveOnly&&) = default;
    MoveOnly& operator=(MoveOnly&&) = default;
};

// What an image is beyond its base width and height: the view type it is seen through (2D, 3D,
// 2D array, cube, cube array, 1D), the depth of a 3D image, and its array layers (6 per cube).
struct ImageShape {
    VkImageViewType viewType = VK_IMAGE_VIEW_TYPE_2D;
    uint32_t depth = 1;
    uint32_t layers = 1;
};

struct GpuImage : MoveOnly {
    VkImage handle = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkImageView view = VK_NULL_HANDLE; // over all of its levels and layers
    VkFormat format = VK_FORMAT_UNDEFINED;
    VkExtent2D extent{};
    uint32_t mipLevels = 1;
    ImageShape shape;
};

struct GpuBuffer : MoveOnly {
    VkBuffer handle = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0;
    void* mapped = nullptr; // persistently mapped when host-visible
};

// Number of levels of a full mip chain down to 1×1(×1).
inline uint32_t fullMipCount(uint32_t width, uint32_t height, uint32_t depth = 1) {
    uint32_t levels = 1;
    for (uint32_t s = std::max({width, height, depth}); s > 1; s >>= 1)
        ++levels;
    return levels;
}

// The image type and create flags an image of `viewType` needs (3D for 3D views, cube-compatible
// for cube views, 1D for 1D views, else 2D).
inline VkImageType imageTypeFor(VkImageViewType viewType) {
    switch (viewType) {
    case VK_IMAGE_VIEW_TYPE_1D:
    case VK_IMAGE_VIEW_TYPE_1D_ARRAY:
        return VK_IMAGE_TYPE_1D;
    case VK_IMAGE_VIEW_TYPE_3D:
        return VK_IMAGE_TYPE_3D;
    default:
        return VK_IMAGE_TYPE_2D;
    }
}
inline VkImageCreateFlags imageCreateFlagsFor(VkImageViewType viewType) {
    return viewType == VK_IMAGE_VIEW_TYPE_CUBE || viewType == VK_IMAGE_VIEW_TYPE_CUBE_ARRAY
               ? VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT
               : 0;
}

// "2D", "3D", "2D array", "cube", ... for messages.
inline const char* viewTypeName(VkImageViewType viewType) {
    switch (viewType) {
    case VK_IMAGE_VIEW_TYPE_1D:
        return "1D";
    case VK_IMAGE_VIEW_TYPE_2D:
        return "2D";
    case VK_IMAGE_VIEW_TYPE_3D:
        return "3D";
    case VK_IMAGE_VIEW_TYPE_CUBE:
        return "cube";
    case VK_IMAGE_VIEW_TYPE_1D_ARRAY:
        return "1D array";
    case VK_IMAGE_VIEW_TYPE_2D_ARRAY:
        return "2D array";
    case VK_IMAGE_VIEW_TYPE_CUBE_ARRAY:
        return "cube array";
    default:
        return "(unknown view type)";
    }
}

// Empty when `extent` and `shape` describe a valid image (a 3D image has one layer, a 2D image
// depth 1, a cube is square with 6 layers, a cube array a multiple of 6, ...); else what is wrong.
inline std::string checkImageShape(VkExtent2D extent, const ImageShape& shape) {
    const std::string what = std::string("a ") + viewTypeName(shape.viewType) + " image of " +
                             std::to_string(extent.width) + "x" + std::to_string(extent.height) +
                             "x" + std::to_string(shape.depth) + " with " +
                             std::to_string(shape.layers) + " layer(s)";
    if (extent.width == 0 || extent.height == 0 || shape.depth == 0 || shape.layers == 0)
        return what + ": every size must be at least 1";
    const bool is3d = shape.viewType == VK_IMAGE_VIEW_TYPE_3D;
    if (!is3d && shape.depth != 1) return what + ": only 3D images have a depth";
    if (is3d && shape.layers != 1) return what + ": 3D images have one layer";
    switch (shape.viewType) {
    case VK_IMAGE_VIEW_TYPE_1D:
    case VK_IMAGE_VIEW_TYPE_1D_ARRAY:
        if (extent.height != 1) return what + ": 1D images have height 1";
        if (shape.viewType == VK_IMAGE_VIEW_TYPE_1D && shape.layers != 1)
            return what + ": use a 1D array for layers";
        break;
    case VK_IMAGE_VIEW_TYPE_CUBE:
    case VK_IMAGE_VIEW_TYPE_CUBE_ARRAY:
        if (extent.width != extent.height) return what + ": cube faces are square";
        if (shape.layers % 6 != 0) return what + ": a cube has 6 layers per cube";
        if (shape.viewType == VK_IMAGE_VIEW_TYPE_CUBE && shape.layers != 6)
            return what + ": a cube view has exactly 6 layers";
        break;
    case VK_IMAGE_VIEW_TYPE_2D:
    case VK_IMAGE_VIEW_TYPE_3D:
        if (shape.layers != 1) return what + ": use a 2D array for layers";
        break;
    case VK_IMAGE_VIEW_TYPE_2D_ARRAY:
        break;
    default:
        return what + ": unknown view type";
    }
    return {};
}

} // namespace estuary
