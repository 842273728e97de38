// The pure Vulkan→CUDA mappings against every row of the CUDA programming guide's tables
// (../shared/INTEROP_FACTS.md), the image-shape rules exported images follow (which shapes are
// images, their Vulkan type and flags, mip chains and copy regions of 3D and layered images, worked
// out by hand here), plus UUID device matching over hand-made device lists. None of it needs CUDA
// or a GPU: these run in every build, with or without the toolkit.
#include "estuary/interop/device_match.h"
#include "errors.h"
#include "estuary/interop/format_tables.h"
#include "resources.h"

#include <gtest/gtest.h>

#include <array>
#include <initializer_list>
#include <set>
#include <string>
#include <vector>

namespace estuary::interop {
namespace {

struct FormatCase {
    VkFormat format;
    int x, y, z, w;
    ChannelKind kind;
};

constexpr auto U = ChannelKind::Unsigned;
constexpr auto S = ChannelKind::Signed;
constexpr auto F = ChannelKind::Float;

// Written out again from the guide on purpose: the test must not read the table it checks.
const FormatCase kGuideRows[] = {
    {VK_FORMAT_R8_UINT, 8, 0, 0, 0, U},
    {VK_FORMAT_R8_SINT, 8, 0, 0, 0, S},
    {VK_FORMAT_R8G8_UINT, 8, 8, 0, 0, U},
    {VK_FORMAT_R8G8_SINT, 8, 8, 0, 0, S},
    {VK_FORMAT_R8G8B8A8_UINT, 8, 8, 8, 8, U},
    {VK_FORMAT_R8G8B8A8_SINT, 8, 8, 8, 8, S},
    {VK_FORMAT_R16_UINT, 16, 0, 0, 0, U},
    {VK_FORMAT_R16_SINT, 16, 0, 0, 0, S},
    {VK_FORMAT_R16G16_UINT, 16, 16, 0, 0, U},
    {VK_FORMAT_R16G16_SINT, 16, 16, 0, 0, S},
    {VK_FORMAT_R16G16B16A16_UINT, 16, 16, 16, 16, U},
    {VK_FORMAT_R16G16B16A16_SINT, 16, 16, 16, 16, S},
    {VK_FORMAT_R32_UINT, 32, 0, 0, 0, U},
    {VK_FORMAT_R32_SINT, 32, 0, 0, 0, S},
    {VK_FORMAT_R32_SFLOAT, 32, 0, 0, 0, F},
    {VK_FORMAT_R32G32_UINT, 32, 32, 0, 0, U},
    {VK_FORMAT_R32G32_SINT, 32, 32, 0, 0, S},
    {VK_FORMAT_R32G32_SFLOAT, 32, 32, 0, 0, F},
    {VK_FORMAT_R32G32B32A32_UINT, 32, 32, 32, 32, U},
    {VK_FORMAT_R32G32B32A32_SINT, 32, 32, 32, 32, S},
    {VK_FORMAT_R32G32B32A32_SFLOAT, 32, 32, 32, 32, F},
    // estuary's two additions
    {VK_FORMAT_R16G16B16A16_SFLOAT, 16, 16, 16, 16, F},
    {VK_FORMAT_R8G8B8A8_UNORM, 8, 8, 8, 8, U},
};

TEST(InteropTables, EveryGuideFormatRowMapsToItsChannelDescriptor) {
    for (const auto& row : kGuideRows) {
        SCOPED_TRACE(formatName(row.format));
        const auto desc = channelFormatFor(row.format);
        ASSERT_TRUE(desc.has_value());
        EXPECT_EQ(desc->x, row.x);
        EXPECT_EQ(desc->y, row.y);
        EXPECT_EQ(desc->z, row.z);
        EXPECT_EQ(desc->w, row.w);
        EXPECT_EQ(desc->kind, row.kind);
    }
}

TEST(InteropTables, ShareableFormatsAreExactlyTheGuideRowsPlusTwo) {
    std::set<VkFormat> expected;
    for (const auto& row : kGuideRows)
        expected.insert(row.format);
    const auto formats = shareableFormats();
    EXPECT_EQ(formats.size(), 23u);
    EXPECT_EQ(std::set<VkFormat>(formats.begin(), formats.end()), expected);
}

TEST(InteropTables, UnlistedFormatsHaveNoChannelDescriptor) {
    EXPECT_FALSE(channelFormatFor(VK_FORMAT_B8G8R8A8_UNORM));
    EXPECT_FALSE(channelFormatFor(VK_FORMAT_R8G8B8_UINT));
    EXPECT_FALSE(channelFormatFor(VK_FORMAT_D32_SFLOAT));
    EXPECT_FALSE(channelFormatFor(VK_FORMAT_UNDEFINED));
}

struct ExtentCase {
    VkImageViewType type;
    size_t w, h, d;
};

TEST(InteropTables, EveryViewTypeMapsToTheGuideExtent) {
    const VkExtent3D e{64, 32, 8};
    const uint32_t layers = 6;
    const ExtentCase cases[] = {
        {VK_IMAGE_VIEW_TYPE_1D, 64, 0, 0},          {VK_IMAGE_VIEW_TYPE_2D, 64, 32, 0},
        {VK_IMAGE_VIEW_TYPE_3D, 64, 32, 8},         {VK_IMAGE_VIEW_TYPE_CUBE, 64, 32, 6},
        {VK_IMAGE_VIEW_TYPE_1D_ARRAY, 64, 0, 6},    {VK_IMAGE_VIEW_TYPE_2D_ARRAY, 64, 32, 6},
        {VK_IMAGE_VIEW_TYPE_CUBE_ARRAY, 64, 32, 6},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(int(c.type));
        const auto extent = cudaExtentFor(c.type, e, layers);
        ASSERT_TRUE(extent.has_value());
        EXPECT_EQ(extent->width, c.w);
        EXPECT_EQ(extent->height, c.h);
        EXPECT_EQ(extent->depth, c.d);
    }
    EXPECT_FALSE(cudaExtentFor(VK_IMAGE_VIEW_TYPE_MAX_ENUM, e, layers));
}

TEST(InteropTables, ViewTypeAndUsageMapToArrayFlags) {
    const VkImageUsageFlags sampled = VK_IMAGE_USAGE_SAMPLED_BIT;
    EXPECT_EQ(mipmappedArrayFlagsFor(VK_IMAGE_VIEW_TYPE_1D, sampled, false), 0u);
    EXPECT_EQ(mipmappedArrayFlagsFor(VK_IMAGE_VIEW_TYPE_2D, sampled, false), 0u);
    EXPECT_EQ(mipmappedArrayFlagsFor(VK_IMAGE_VIEW_TYPE_3D, sampled, false), 0u);
    EXPECT_EQ(mipmappedArrayFlagsFor(VK_IMAGE_VIEW_TYPE_CUBE, sampled, false), kArrayCubemap);
    EXPECT_EQ(mipmappedArrayFlagsFor(VK_IMAGE_VIEW_TYPE_CUBE_ARRAY, sampled, false),
              kArrayCubemap | kArrayLayered);
    EXPECT_EQ(mipmappedArrayFlagsFor(VK_IMAGE_VIEW_TYPE_1D_ARRAY, sampled, false), kArrayLayered);
    EXPECT_EQ(mipmappedArrayFlagsFor(VK_IMAGE_VIEW_TYPE_2D_ARRAY, sampled, false), kArrayLayered);
    EXPECT_EQ(mipmappedArrayFlagsFor(VK_IMAGE_VIEW_TYPE_2D,
                                     sampled | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, false),
              kArrayColorAttachment);
    EXPECT_EQ(mipmappedArrayFlagsFor(VK_IMAGE_VIEW_TYPE_2D_ARRAY, sampled, true),
              kArrayLayered | kArraySurfaceLoadStore);
}

TEST(InteropTables, ArrayTypesTakeTheLayerCountAndOnly3dTakesTheDepth) {
    // The shapes the GPU round-trip test exports, with depth 1 or one layer as estuary passes them.
    const auto volume = cudaExtentFor(VK_IMAGE_VIEW_TYPE_3D, {37, 21, 13}, 1);
    const auto array = cudaExtentFor(VK_IMAGE_VIEW_TYPE_2D_ARRAY, {29, 17, 1}, 5);
    const auto cube = cudaExtentFor(VK_IMAGE_VIEW_TYPE_CUBE, {24, 24, 1}, 6);
    const auto cubes = cudaExtentFor(VK_IMAGE_VIEW_TYPE_CUBE_ARRAY, {24, 24, 1}, 12);
    ASSERT_TRUE(volume && array && cube && cubes);
    EXPECT_EQ(volume->width, 37u);
    EXPECT_EQ(volume->height, 21u);
    EXPECT_EQ(volume->depth, 13u);
    EXPECT_EQ(array->width, 29u);
    EXPECT_EQ(array->height, 17u);
    EXPECT_EQ(array->depth, 5u);
    EXPECT_EQ(cube->depth, 6u);
    EXPECT_EQ(cubes->depth, 12u);
    // Surfaces of each: a 3D array is not layered, a cube is a cubemap, never plain layered.
    const VkImageUsageFlags usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    EXPECT_EQ(mipmappedArrayFlagsFor(VK_IMAGE_VIEW_TYPE_3D, usage, true), kArraySurfaceLoadStore);
    EXPECT_EQ(mipmappedArrayFlagsFor(VK_IMAGE_VIEW_TYPE_CUBE, usage, true),
              kArrayCubemap | kArraySurfaceLoadStore);
    EXPECT_EQ(mipmappedArrayFlagsFor(VK_IMAGE_VIEW_TYPE_CUBE_ARRAY, usage, true),
              kArrayCubemap | kArrayLayered | kArraySurfaceLoadStore);
}

struct ShapeCase {
    VkExtent2D extent;
    ImageShape shape;
};

TEST(InteropShapes, ValidShapesOfEveryViewTypeAreImages) {
    const ShapeCase cases[] = {
        {{67, 45}, {VK_IMAGE_VIEW_TYPE_2D, 1, 1}},
        {{37, 21}, {VK_IMAGE_VIEW_TYPE_3D, 13, 1}},
        {{4, 4}, {VK_IMAGE_VIEW_TYPE_3D, 1, 1}}, // a single slice is still a 3D image
        {{29, 17}, {VK_IMAGE_VIEW_TYPE_2D_ARRAY, 1, 5}},
        {{29, 17}, {VK_IMAGE_VIEW_TYPE_2D_ARRAY, 1, 1}},
        {{24, 24}, {VK_IMAGE_VIEW_TYPE_CUBE, 1, 6}},
        {{24, 24}, {VK_IMAGE_VIEW_TYPE_CUBE_ARRAY, 1, 12}},
        {{100, 1}, {VK_IMAGE_VIEW_TYPE_1D, 1, 1}},
        {{100, 1}, {VK_IMAGE_VIEW_TYPE_1D_ARRAY, 1, 3}},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(viewTypeName(c.shape.viewType));
        EXPECT_EQ(checkImageShape(c.extent, c.shape), "");
    }
}

struct BadShapeCase {
    VkExtent2D extent;
    ImageShape shape;
    const char* names[3]; // what the message must contain: the type, the sizes, the rule
};

TEST(InteropShapes, InvalidShapesAreRefusedNamingTypeSizesAndRule) {
    const BadShapeCase cases[] = {
        {{0, 4}, {VK_IMAGE_VIEW_TYPE_2D, 1, 1}, {"2D", "0x4x1", "at least 1"}},
        {{4, 4}, {VK_IMAGE_VIEW_TYPE_3D, 0, 1}, {"3D", "4x4x0", "at least 1"}},
        {{4, 4}, {VK_IMAGE_VIEW_TYPE_2D_ARRAY, 1, 0}, {"2D array", "0 layer", "at least 1"}},
        {{4, 4}, {VK_IMAGE_VIEW_TYPE_2D, 3, 1}, {"2D", "4x4x3", "only 3D images have a depth"}},
        {{4, 4}, {VK_IMAGE_VIEW_TYPE_CUBE, 2, 6}, {"cube", "4x4x2", "depth"}},
        {{4, 4}, {VK_IMAGE_VIEW_TYPE_3D, 4, 2}, {"3D", "2 layer", "one layer"}},
        {{4, 4}, {VK_IMAGE_VIEW_TYPE_2D, 1, 3}, {"2D", "3 layer", "2D array"}},
        {{24, 16}, {VK_IMAGE_VIEW_TYPE_CUBE, 1, 6}, {"cube", "24x16", "square"}},
        {{24, 24}, {VK_IMAGE_VIEW_TYPE_CUBE, 1, 5}, {"cube", "5 layer", "6 layers"}},
        {{24, 24}, {VK_IMAGE_VIEW_TYPE_CUBE, 1, 12}, {"cube", "12 layer", "exactly 6"}},
        {{24, 24}, {VK_IMAGE_VIEW_TYPE_CUBE_ARRAY, 1, 8}, {"cube array", "8 layer", "6 layers"}},
        {{24, 16}, {VK_IMAGE_VIEW_TYPE_CUBE_ARRAY, 1, 12}, {"cube array", "24x16", "square"}},
        {{100, 2}, {VK_IMAGE_VIEW_TYPE_1D, 1, 1}, {"1D", "100x2", "height 1"}},
        {{100, 2}, {VK_IMAGE_VIEW_TYPE_1D_ARRAY, 1, 3}, {"1D array", "100x2", "height 1"}},
        {{4, 4}, {VK_IMAGE_VIEW_TYPE_MAX_ENUM, 1, 1}, {"unknown view type", "4x4", "unknown"}},
    };
    for (const auto& c : cases) {
        const std::string problem = checkImageShape(c.extent, c.shape);
        SCOPED_TRACE(problem);
        EXPECT_FALSE(problem.empty());
        for (const char* name : c.names)
            EXPECT_NE(problem.find(name), std::string::npos) << "does not name \"" << name << "\"";
    }
}

// A 1D view, unlike a 1D array, covers exactly one layer (Vulkan: 1D, 2D and 3D views have
// layerCount 1), so a 1D shape with layers is no image, as a 2D shape with layers is not.
TEST(InteropShapes, A1dShapeWithSeveralLayersIsRefusedAsA2dOneIs) {
    EXPECT_NE(checkImageShape({100, 1}, {VK_IMAGE_VIEW_TYPE_1D, 1, 3}), "");
}

TEST(InteropShapes, ImageTypeAndCreateFlagsFollowTheViewType) {
    struct Row {
        VkImageViewType viewType;
        VkImageType type;
        VkImageCreateFlags flags;
        const char* name;
    };
    const Row rows[] = {
        {VK_IMAGE_VIEW_TYPE_1D, VK_IMAGE_TYPE_1D, 0, "1D"},
        {VK_IMAGE_VIEW_TYPE_2D, VK_IMAGE_TYPE_2D, 0, "2D"},
        {VK_IMAGE_VIEW_TYPE_3D, VK_IMAGE_TYPE_3D, 0, "3D"},
        {VK_IMAGE_VIEW_TYPE_CUBE, VK_IMAGE_TYPE_2D, VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT, "cube"},
        {VK_IMAGE_VIEW_TYPE_1D_ARRAY, VK_IMAGE_TYPE_1D, 0, "1D array"},
        {VK_IMAGE_VIEW_TYPE_2D_ARRAY, VK_IMAGE_TYPE_2D, 0, "2D array"},
        {VK_IMAGE_VIEW_TYPE_CUBE_ARRAY, VK_IMAGE_TYPE_2D, VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT,
         "cube array"},
    };
    for (const Row& row : rows) {
        SCOPED_TRACE(row.name);
        EXPECT_EQ(imageTypeFor(row.viewType), row.type);
        EXPECT_EQ(imageCreateFlagsFor(row.viewType), row.flags);
        EXPECT_STREQ(viewTypeName(row.viewType), row.name);
    }
}

TEST(InteropShapes, FullMipCountFollowsTheLargestSideDepthIncluded) {
    EXPECT_EQ(fullMipCount(1, 1, 1), 1u);
    EXPECT_EQ(fullMipCount(16, 8), 5u);      // depth defaults to 1
    EXPECT_EQ(fullMipCount(37, 21, 13), 6u); // 37 → 18 → 9 → 4 → 2 → 1
    EXPECT_EQ(fullMipCount(4, 2, 9), 4u);    // depth largest: 9 → 4 → 2 → 1
    EXPECT_EQ(fullMipCount(4, 4, 64), 7u);
    EXPECT_EQ(mipDepth(13, 0), 13u);
    EXPECT_EQ(mipDepth(13, 2), 3u);
    EXPECT_EQ(mipDepth(13, 4), 1u); // clamps at one slice
}

struct RegionRow {
    VkDeviceSize offset;
    uint32_t width, height, depth, layers;
};

void expectRegions(const std::vector<VkBufferImageCopy>& regions,
                   std::initializer_list<RegionRow> rows) {
    ASSERT_EQ(regions.size(), rows.size());
    uint32_t level = 0;
    for (const RegionRow& row : rows) {
        SCOPED_TRACE("level " + std::to_string(level));
        const VkBufferImageCopy& r = regions[level];
        EXPECT_EQ(r.bufferOffset, row.offset);
        EXPECT_EQ(r.bufferRowLength, 0u); // tight rows and slices
        EXPECT_EQ(r.bufferImageHeight, 0u);
        EXPECT_EQ(r.imageSubresource.aspectMask, VkImageAspectFlags(VK_IMAGE_ASPECT_COLOR_BIT));
        EXPECT_EQ(r.imageSubresource.mipLevel, level);
        EXPECT_EQ(r.imageSubresource.baseArrayLayer, 0u);
        EXPECT_EQ(r.imageSubresource.layerCount, row.layers);
        EXPECT_EQ(r.imageOffset.x, 0);
        EXPECT_EQ(r.imageOffset.y, 0);
        EXPECT_EQ(r.imageOffset.z, 0);
        EXPECT_EQ(r.imageExtent.width, row.width);
        EXPECT_EQ(r.imageExtent.height, row.height);
        EXPECT_EQ(r.imageExtent.depth, row.depth);
        ++level;
    }
}

TEST(InteropShapes, MipChainOf3dImagePacksShrinkingSlicesLevelAfterLevel) {
    const ImageShape shape{VK_IMAGE_VIEW_TYPE_3D, 3, 1};
    VkDeviceSize total = 0;
    // 5x3x3 R32: 180 bytes; 2x1x1 at 192 (16-aligned), 8 bytes; 1x1x1 at 208, 4 bytes.
    expectRegions(mipChainRegions({5, 3}, fullMipCount(5, 3, 3), 4, 16, total, shape),
                  {{0, 5, 3, 3, 1}, {192, 2, 1, 1, 1}, {208, 1, 1, 1, 1}});
    EXPECT_EQ(total, 212u);
    EXPECT_EQ(levelTexels({5, 3}, shape, 0), 45u);
    EXPECT_EQ(levelTexels({5, 3}, shape, 1), 2u);

    // Deepest side sets the chain; width and height stop at 1 while slices still halve. R8,
    // tight: 4x2x9 = 72, 2x1x4 = 8, 1x1x2 = 2, 1x1x1 = 1.
    const ImageShape deep{VK_IMAGE_VIEW_TYPE_3D, 9, 1};
    expectRegions(mipChainRegions({4, 2}, fullMipCount(4, 2, 9), 1, 1, total, deep),
                  {{0, 4, 2, 9, 1}, {72, 2, 1, 4, 1}, {80, 1, 1, 2, 1}, {82, 1, 1, 1, 1}});
    EXPECT_EQ(total, 83u);
}

TEST(InteropShapes, MipChainOfLayeredImagesKeepsEveryLayerAtEveryLevel) {
    const ImageShape array{VK_IMAGE_VIEW_TYPE_2D_ARRAY, 1, 3};
    VkDeviceSize total = 0;
    // 6x5 R16, 3 layers: 180 bytes; 3x2 at 192, 36 bytes; 1x1 at 240 (228 rounded up), 6 bytes.
    expectRegions(mipChainRegions({6, 5}, fullMipCount(6, 5), 2, 16, total, array),
                  {{0, 6, 5, 1, 3}, {192, 3, 2, 1, 3}, {240, 1, 1, 1, 3}});
    EXPECT_EQ(total, 246u);
    mipChainRegions({6, 5}, 3, 2, 1, total, array);
    EXPECT_EQ(total, 222u); // 180 + 36 + 6, tight
    EXPECT_EQ(levelTexels({6, 5}, array, 1), 18u);

    // A 4x4 RGBA32F cube: 6 faces at each of 3 levels, 1536 + 384 + 96 bytes.
    const ImageShape cube{VK_IMAGE_VIEW_TYPE_CUBE, 1, 6};
    expectRegions(mipChainRegions({4, 4}, fullMipCount(4, 4), 16, 16, total, cube),
                  {{0, 4, 4, 1, 6}, {1536, 2, 2, 1, 6}, {1920, 1, 1, 1, 6}});
    EXPECT_EQ(total, 2016u);
}

VulkanDeviceInfo vulkanDevice(const char* name, uint8_t uuidSeed, VkPhysicalDeviceType type,
                              uint32_t groupSize = 1, uint32_t apiVersion = VK_API_VERSION_1_3) {
    VulkanDeviceInfo info;
    info.name = name;
    info.type = type;
    info.apiVersion = apiVersion;
    for (uint8_t i = 0; i < 16; ++i)
        info.uuid[i] = uint8_t(uuidSeed + i);
    info.deviceGroupSize = groupSize;
    return info;
}

CudaDeviceInfo cudaDevice(int ordinal, const char* name, uint8_t uuidSeed) {
    CudaDeviceInfo info;
    info.ordinal = ordinal;
    info.name = name;
    for (uint8_t i = 0; i < 16; ++i)
        info.uuid[i] = uint8_t(uuidSeed + i);
    info.computeMajor = 9;
    return info;
}

// The message of the unsupported() error matchDevices throws; fails the test when it returns.
std::string matchFailure(const std::vector<VulkanDeviceInfo>& vk,
                         const std::vector<CudaDeviceInfo>& cuda, int requested) {
    try {
        const auto pairs = matchDevices(vk, cuda, requested);
        ADD_FAILURE() << "expected no usable pair, got " << pairs.size();
    } catch (const Error& e) {
        EXPECT_EQ(exitCode(e), ExitCode::Unsupported) << e.what();
        return e.what();
    }
    return {};
}

TEST(InteropMatch, PicksTheVulkanDeviceWithTheSameUuid) {
    const std::vector<VulkanDeviceInfo> vk = {
        vulkanDevice("llvmpipe", 50, VK_PHYSICAL_DEVICE_TYPE_CPU),
        vulkanDevice("GPU B", 20, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU),
        vulkanDevice("GPU A", 10, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)};
    const std::vector<CudaDeviceInfo> cuda = {cudaDevice(0, "GPU A", 10),
                                              cudaDevice(1, "GPU B", 20)};
    const auto all = matchDevices(vk, cuda, -1);
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].vulkan.name, "GPU A");
    EXPECT_EQ(all[0].cuda.ordinal, 0);
    EXPECT_EQ(all[1].vulkan.name, "GPU B");
    EXPECT_EQ(all[1].cuda.ordinal, 1);
    const auto second = matchDevices(vk, cuda, 1);
    ASSERT_EQ(second.size(), 1u);
    EXPECT_EQ(second[0].cuda.ordinal, 1);
    EXPECT_EQ(second[0].vulkan.name, "GPU B");
}

TEST(InteropMatch, ReturnsEveryUsablePairInCudaOrder) {
    // Vulkan lists them in another order than CUDA: the pairs follow CUDA's.
    const std::vector<VulkanDeviceInfo> vk = {
        vulkanDevice("GPU C", 30, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU),
        vulkanDevice("GPU A", 10, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU),
        vulkanDevice("GPU B", 20, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)};
    const std::vector<CudaDeviceInfo> cuda = {
        cudaDevice(0, "GPU A", 10), cudaDevice(1, "GPU B", 20), cudaDevice(2, "GPU C", 30)};
    const auto pairs = matchDevices(vk, cuda, -1);
    ASSERT_EQ(pairs.size(), 3u);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(pairs[size_t(i)].cuda.ordinal, i);
        EXPECT_EQ(pairs[size_t(i)].vulkan.uuid, pairs[size_t(i)].cuda.uuid);
    }
}

TEST(InteropMatch, FirstCudaDeviceInADeviceGroupIsSkippedForTheSecond) {
    const std::vector<VulkanDeviceInfo> vk = {
        vulkanDevice("GPU A", 10, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, 2),
        vulkanDevice("GPU B", 20, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)};
    const std::vector<CudaDeviceInfo> cuda = {cudaDevice(0, "GPU A", 10),
                                              cudaDevice(1, "GPU B", 20)};
    const auto pairs = matchDevices(vk, cuda, -1);
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_EQ(pairs[0].cuda.ordinal, 1);
    EXPECT_EQ(pairs[0].vulkan.name, "GPU B");
}

TEST(InteropMatch, FirstCudaDeviceWithAVulkan12TwinIsSkippedForTheSecond) {
    const std::vector<VulkanDeviceInfo> vk = {
        vulkanDevice("GPU A", 10, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, 1, VK_API_VERSION_1_2),
        vulkanDevice("GPU B", 20, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)};
    const std::vector<CudaDeviceInfo> cuda = {cudaDevice(0, "GPU A", 10),
                                              cudaDevice(1, "GPU B", 20)};
    const auto pairs = matchDevices(vk, cuda, -1);
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_EQ(pairs[0].cuda.ordinal, 1);
    EXPECT_EQ(pairs[0].vulkan.name, "GPU B");
}

TEST(InteropMatch, NoUsablePairListsEachDevicesReasonAndBothLists) {
    const std::vector<VulkanDeviceInfo> vk = {
        vulkanDevice("GPU A", 10, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, 2),
        vulkanDevice("GPU B", 20, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, 1, VK_API_VERSION_1_2),
        vulkanDevice("Other GPU", 99, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)};
    const std::vector<CudaDeviceInfo> cuda = {
        cudaDevice(0, "GPU A", 10), cudaDevice(1, "GPU B", 20), cudaDevice(2, "GPU C", 30)};
    const std::string what = matchFailure(vk, cuda, -1);
    EXPECT_NE(what.find("CUDA device 0 (GPU A): its Vulkan twin GPU A is part of a 2-GPU device "
                        "group"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("CUDA device 1 (GPU B): its Vulkan twin GPU B supports only Vulkan 1.2"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("CUDA device 2 (GPU C): no Vulkan device has its UUID"), std::string::npos)
        << what;
    EXPECT_NE(what.find("Vulkan devices:"), std::string::npos) << what;
    EXPECT_NE(what.find("Other GPU"), std::string::npos) << what;
    EXPECT_NE(what.find("CUDA devices:"), std::string::npos) << what;
    EXPECT_NE(what.find(formatUuid(cuda[2].uuid.data())), std::string::npos) << what;
}

TEST(InteropMatch, NoMatchListsBothSidesAndIsUnsupported) {
    const std::vector<VulkanDeviceInfo> vk = {
        vulkanDevice("Other GPU", 99, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)};
    const std::vector<CudaDeviceInfo> cuda = {cudaDevice(0, "GPU A", 10)};
    const std::string what = matchFailure(vk, cuda, -1);
    EXPECT_NE(what.find("Other GPU"), std::string::npos) << what;
    EXPECT_NE(what.find("GPU A"), std::string::npos) << what;
    EXPECT_NE(what.find("UUID"), std::string::npos) << what;
}

TEST(InteropMatch, NoCudaDeviceSaysSo) {
    const std::vector<VulkanDeviceInfo> vk = {
        vulkanDevice("GPU A", 10, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)};
    const std::string what = matchFailure(vk, {}, -1);
    EXPECT_NE(what.find("there is no CUDA device"), std::string::npos) << what;
}

TEST(InteropMatch, CpuVulkanDevicesAreNeverMatched) {
    // Even a (contrived) UUID collision with a CPU implementation must not pick it.
    const std::vector<VulkanDeviceInfo> vk = {
        vulkanDevice("llvmpipe", 10, VK_PHYSICAL_DEVICE_TYPE_CPU)};
    const std::vector<CudaDeviceInfo> cuda = {cudaDevice(0, "GPU A", 10)};
    EXPECT_NE(matchFailure(vk, cuda, -1).find("no Vulkan device has its UUID"), std::string::npos);
}

TEST(InteropMatch, RequestedDeviceOutOfRangeNamesTheAllowedRange) {
    const std::vector<VulkanDeviceInfo> vk = {
        vulkanDevice("GPU A", 10, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)};
    const std::vector<CudaDeviceInfo> cuda = {cudaDevice(0, "GPU A", 10)};
    const std::string what = matchFailure(vk, cuda, 3);
    EXPECT_NE(what.find("CUDA device 3"), std::string::npos) << what;
    EXPECT_NE(what.find("0..0"), std::string::npos) << what;
}

TEST(InteropMatch, RequestedDeviceIsNotReplacedByAnotherWhenUnusable) {
    const std::vector<VulkanDeviceInfo> vk = {
        vulkanDevice("GPU A", 10, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, 2),
        vulkanDevice("GPU B", 20, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)};
    const std::vector<CudaDeviceInfo> cuda = {cudaDevice(0, "GPU A", 10),
                                              cudaDevice(1, "GPU B", 20)};
    const std::string what = matchFailure(vk, cuda, 0);
    EXPECT_NE(what.find("device group"), std::string::npos) << what;
    EXPECT_EQ(what.find("CUDA device 1 (GPU B):"), std::string::npos) << what;
}

TEST(InteropMatch, FormatUuidWritesTheCanonicalForm) {
    std::array<uint8_t, 16> uuid{};
    for (uint8_t i = 0; i < 16; ++i)
        uuid[i] = uint8_t(i * 17);
    EXPECT_EQ(formatUuid(uuid.data()), "00112233-4455-6677-8899-aabbccddeeff");
}

} // namespace
} // namespace estuary::interop
