// The picture tap's choice of memory for its readback buffers (picture_tap.h): host-cached where
// the device offers it (coherent or not), host-coherent uncached only where nothing cached is
// host-visible, nothing where nothing is host-visible; the buffer's type bits respected.
#include "picture_tap.h"

#include <gtest/gtest.h>

#include <initializer_list>

namespace estuary::lib {
namespace {

constexpr VkMemoryPropertyFlags kLocal = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
constexpr VkMemoryPropertyFlags kVisible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
constexpr VkMemoryPropertyFlags kCoherent = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
constexpr VkMemoryPropertyFlags kCached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;

VkPhysicalDeviceMemoryProperties types(std::initializer_list<VkMemoryPropertyFlags> flags) {
    VkPhysicalDeviceMemoryProperties p{};
    for (const VkMemoryPropertyFlags f : flags)
        p.memoryTypes[p.memoryTypeCount++].propertyFlags = f;
    return p;
}

TEST(PictureTapMemory, NvidiaLikeTypesGiveCachedCoherentNotTheWriteCombinedOneListedFirst) {
    // An NVIDIA discrete GPU: device-local, host-visible coherent (write-combined), host-visible
    // coherent cached, and ReBAR's device-local host-visible.
    const auto p = types({kLocal, kVisible | kCoherent, kVisible | kCoherent | kCached,
                          kLocal | kVisible | kCoherent});
    EXPECT_EQ(readbackMemoryFlags(p, ~0u), kVisible | kCoherent | kCached);
}

TEST(PictureTapMemory, CachedButNotCoherentIsPreferredToUncachedCoherent) {
    const auto p = types({kLocal, kVisible | kCoherent, kVisible | kCached});
    EXPECT_EQ(readbackMemoryFlags(p, ~0u), kVisible | kCached); // invalidated before reads
}

TEST(PictureTapMemory, WithoutCachedTypesTheCoherentOneIsTheFallback) {
    const auto p = types({kLocal, kVisible | kCoherent});
    EXPECT_EQ(readbackMemoryFlags(p, ~0u), kVisible | kCoherent);
}

TEST(PictureTapMemory, TypesTheBufferCannotUseAreNotChosen) {
    const auto p = types({kLocal, kVisible | kCoherent, kVisible | kCoherent | kCached});
    EXPECT_EQ(readbackMemoryFlags(p, 0b011u), kVisible | kCoherent); // type 2 not allowed
    EXPECT_EQ(readbackMemoryFlags(p, 0b001u), 0u);                   // nothing host-visible
}

TEST(PictureTapMemory, AnIntegratedDeviceWithOneTypeForEverythingGetsIt) {
    const auto p = types({kLocal | kVisible | kCoherent | kCached}); // lavapipe's only type
    EXPECT_EQ(readbackMemoryFlags(p, 0b1u), kVisible | kCoherent | kCached);
}

} // namespace
} // namespace estuary::lib
