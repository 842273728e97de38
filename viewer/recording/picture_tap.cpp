// Copying each frame's picture out for the recorder and the server (picture_tap.h).
#include "picture_tap.h"
#include "viewer.h"
#include "vk_check.h"

#include <algorithm>
#include <chrono>

namespace estuary::lib {
namespace {

PictureTap::Staged makeStaged(const Device& device, VkDeviceSize bytes) {
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = bytes;
    info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkDeviceBufferMemoryRequirements query{VK_STRUCTURE_TYPE_DEVICE_BUFFER_MEMORY_REQUIREMENTS};
    query.pCreateInfo = &info;
    VkMemoryRequirements2 req{VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2};
    vkGetDeviceBufferMemoryRequirements(device.handle, &query, &req);
    const VkMemoryPropertyFlags flags =
        readbackMemoryFlags(device.memory, req.memoryRequirements.memoryTypeBits);
    if (!flags)
        throw unsupported("no host-visible Vulkan memory type for the picture's copy (type bits " +
                          std::to_string(req.memoryRequirements.memoryTypeBits) + ")");
    PictureTap::Staged staged;
    staged.buffer = createBuffer(device, bytes, info.usage, flags, "tapped picture");
    staged.coherent = (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
    return staged;
}

// A buffer no draw in flight writes and no consumer holds, fit for `bytes` (grown if need be);
// null when the pool is full and the consumer holds some.
PictureTap::Staged* freeBuffer(estuary_viewer& v, PictureTap& tap, VkDeviceSize bytes) {
    for (auto& staged : tap.pool) {
        if (staged->frame != UINT64_MAX || staged->held) continue;
        if (staged->buffer.size < bytes) { // written by no draw in flight: it can go now
            destroyBuffer(v.device, staged->buffer);
            *staged = makeStaged(v.device, bytes);
        }
        return staged.get();
    }
    // Full, and a consumer holds some: one will come back. (With none held, every buffer would
    // be in a draw in flight, more than the ring allows; grown rather than waited for forever.)
    const bool someHeld =
        std::any_of(tap.pool.begin(), tap.pool.end(), [](const auto& s) { return s->held; });
    if (tap.pool.size() >= size_t(v.hostRing) + tap.spare && someHeld) return nullptr;
    tap.pool.push_back(std::make_unique<PictureTap::Staged>(makeStaged(v.device, bytes)));
    return tap.pool.back().get();
}

} // namespace

VkMemoryPropertyFlags readbackMemoryFlags(const VkPhysicalDeviceMemoryProperties& types,
                                          uint32_t typeBits) {
    constexpr VkMemoryPropertyFlags kVisible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
    constexpr VkMemoryPropertyFlags kCached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    constexpr VkMemoryPropertyFlags kCoherent = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (const VkMemoryPropertyFlags wanted :
         {kVisible | kCached | kCoherent, kVisible | kCached, kVisible | kCoherent})
        for (uint32_t i = 0; i < types.memoryTypeCount && i < 32; ++i)
            if ((typeBits & (1u << i)) && (types.memoryTypes[i].propertyFlags & wanted) == wanted)
                return wanted;
    return 0;
}

void tapPicture(estuary_viewer& v, PictureTap& tap, VkCommandBuffer cmd, uint32_t /*entry*/,
                uint64_t frame, VkImage image, VkExtent2D extent) {
    tap.device = v.device.handle;
    const VkDeviceSize bytes = VkDeviceSize(extent.width) * extent.height * 4;
    PictureTap::Staged* staged = nullptr;
    {
        std::unique_lock lock(tap.mutex);
        // A frame whose draw failed after its copy was recorded is begun again with the same
        // index: its earlier buffer was never submitted and is free.
        for (auto& s : tap.pool)
            if (s->frame != UINT64_MAX && s->frame >= frame) s->frame = UINT64_MAX;
        staged = freeBuffer(v, tap, bytes);
        if (!staged) {
            // Every buffer beyond the frames in flight is held by the consumer's thread, which
            // releases them as it goes: the loop waits here, as the recording's contract says.
            ++tap.waits;
            const auto start = std::chrono::steady_clock::now();
            tap.released.wait(lock, [&] { return (staged = freeBuffer(v, tap, bytes)); });
            tap.waitMs +=
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count();
        }
        staged->frame = frame;
        staged->extent = extent;
    }
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {extent.width, extent.height, 1};
    vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, staged->buffer.handle,
                           1, &region);
    recordMemoryBarrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
}

const PictureTap::Staged* takeTapped(PictureTap& tap, uint64_t frame, bool hold) {
    PictureTap::Staged* found = nullptr;
    {
        std::lock_guard lock(tap.mutex);
        for (auto& s : tap.pool)
            if (s->frame == frame) found = s.get();
        if (!found) return nullptr; // drawn before the tap, or nothing drawn
        found->frame = UINT64_MAX;
        found->held = hold;
    }
    if (!found->coherent) {
        // The device's writes become visible to the host's reads only through an invalidation of
        // non-coherent memory. The buffer has its own allocation, mapped whole: offset 0 and
        // VK_WHOLE_SIZE meet the nonCoherentAtomSize rule whatever the allocation's size.
        VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
        range.memory = found->buffer.memory;
        range.offset = 0;
        range.size = VK_WHOLE_SIZE;
        try {
            VK_CHECK(vkInvalidateMappedMemoryRanges(tap.device, 1, &range));
        } catch (...) { // not handed out: the buffer goes back to the pool
            std::lock_guard lock(tap.mutex);
            found->held = false;
            throw;
        }
    }
    return found;
}

void releaseTapped(PictureTap& tap, const PictureTap::Staged* staged) {
    {
        std::lock_guard lock(tap.mutex);
        for (auto& s : tap.pool)
            if (s.get() == staged) s->held = false;
    }
    tap.released.notify_all();
}

void releaseTap(estuary_viewer& v, PictureTap& tap) {
    for (auto& staged : tap.pool)
        destroyBuffer(v.device, staged->buffer);
    tap.pool.clear();
}

} // namespace estuary::lib
