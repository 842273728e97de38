// The pure Vulkan→CUDA mappings against every row of the CUDA programming guide's tables
// (../shared/INTEROP_FACTS.md), plus UUID device matching over hand-made device lists. Neither
// needs CUDA: these run in every build, with or without the toolkit.
#include "device_match.h"
#include "errors.h"
#include "format_tables.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>

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

PhysicalDeviceInfo vulkanDevice(const char* name, uint8_t uuidSeed, VkPhysicalDeviceType type,
                                uint32_t groupSize = 1) {
    PhysicalDeviceInfo info;
    std::strncpy(info.properties.deviceName, name, VK_MAX_PHYSICAL_DEVICE_NAME_SIZE - 1);
    info.properties.deviceType = type;
    info.properties.apiVersion = VK_API_VERSION_1_3;
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

TEST(InteropMatch, PicksTheVulkanDeviceWithTheSameUuid) {
    const std::vector<PhysicalDeviceInfo> vk = {
        vulkanDevice("llvmpipe", 50, VK_PHYSICAL_DEVICE_TYPE_CPU),
        vulkanDevice("GPU B", 20, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU),
        vulkanDevice("GPU A", 10, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)};
    const std::vector<CudaDeviceInfo> cuda = {cudaDevice(0, "GPU A", 10),
                                              cudaDevice(1, "GPU B", 20)};
    EXPECT_STREQ(matchDevices(vk, cuda, -1).vulkan.properties.deviceName, "GPU A");
    EXPECT_EQ(matchDevices(vk, cuda, 1).cuda.ordinal, 1);
    EXPECT_STREQ(matchDevices(vk, cuda, 1).vulkan.properties.deviceName, "GPU B");
}

TEST(InteropMatch, NoMatchListsBothSidesAndIsUnsupported) {
    const std::vector<PhysicalDeviceInfo> vk = {
        vulkanDevice("Other GPU", 99, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)};
    const std::vector<CudaDeviceInfo> cuda = {cudaDevice(0, "GPU A", 10)};
    try {
        matchDevices(vk, cuda, -1);
        FAIL() << "expected no match";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ExitCode::Unsupported);
        const std::string what = e.what();
        EXPECT_NE(what.find("Other GPU"), std::string::npos) << what;
        EXPECT_NE(what.find("GPU A"), std::string::npos) << what;
        EXPECT_NE(what.find("UUID"), std::string::npos) << what;
    }
}

TEST(InteropMatch, CpuVulkanDevicesAreNeverMatched) {
    // Even a (contrived) UUID collision with a CPU implementation must not pick it.
    const std::vector<PhysicalDeviceInfo> vk = {
        vulkanDevice("llvmpipe", 10, VK_PHYSICAL_DEVICE_TYPE_CPU)};
    const std::vector<CudaDeviceInfo> cuda = {cudaDevice(0, "GPU A", 10)};
    EXPECT_THROW(matchDevices(vk, cuda, -1), Error);
}

TEST(InteropMatch, DeviceOutOfRangeNamesTheAllowedRange) {
    const std::vector<PhysicalDeviceInfo> vk = {
        vulkanDevice("GPU A", 10, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)};
    const std::vector<CudaDeviceInfo> cuda = {cudaDevice(0, "GPU A", 10)};
    try {
        matchDevices(vk, cuda, 3);
        FAIL() << "expected an error for --device 3";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("--device 3"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("0..0"), std::string::npos) << e.what();
    }
}

TEST(InteropMatch, MultiGpuDeviceGroupIsRefused) {
    const std::vector<PhysicalDeviceInfo> vk = {
        vulkanDevice("GPU A", 10, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, 2)};
    const std::vector<CudaDeviceInfo> cuda = {cudaDevice(0, "GPU A", 10)};
    try {
        matchDevices(vk, cuda, -1);
        FAIL() << "expected a device-group error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("device group"), std::string::npos) << e.what();
    }
}

} // namespace
} // namespace estuary::interop
