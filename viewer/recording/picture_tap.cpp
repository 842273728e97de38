// Copying each frame's picture out for the recorder and the server (picture_tap.h).
#include "picture_tap.h"
#include "viewer.h"

namespace estuary::lib {

void tapPicture(estuary_viewer& v, PictureTap& tap, VkCommandBuffer cmd, uint32_t entry,
                uint64_t frame, VkImage image, VkExtent2D extent) {
    if (tap.entries.size() != v.hostRing) tap.entries.resize(v.hostRing);
    PictureTap::Staged& staged = tap.entries[entry];
    const VkDeviceSize bytes = VkDeviceSize(extent.width) * extent.height * 4;
    if (staged.buffer.size < bytes) { // the entry's last frame is drawn: the host waited for it
        destroyBuffer(v.device, staged.buffer);
        staged.buffer =
            createBuffer(v.device, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                         "tapped picture");
    }
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {extent.width, extent.height, 1};
    vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, staged.buffer.handle,
                           1, &region);
    recordMemoryBarrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
    staged.frame = frame;
    staged.extent = extent;
}

const PictureTap::Staged* takeTapped(PictureTap& tap, uint64_t frame) {
    if (tap.entries.empty()) return nullptr;
    PictureTap::Staged& staged = tap.entries[frame % tap.entries.size()];
    if (staged.frame != frame) return nullptr; // drawn before the tap, or nothing drawn
    staged.frame = UINT64_MAX;
    return &staged;
}

void releaseTap(estuary_viewer& v, PictureTap& tap) {
    for (PictureTap::Staged& staged : tap.entries)
        destroyBuffer(v.device, staged.buffer);
    tap.entries.clear();
}

} // namespace estuary::lib
