#include "offscreen.h"
#include "vk_check.h"

#include <string>

namespace estuary {

OffscreenTarget createOffscreenTarget(const Device& device, VkExtent2D extent, VkFormat format) {
    if (formatTexelSize(format) != 4)
        throw runtimeError("offscreen target: format " + std::to_string(format) +
                           " is not a 4-byte colour format");
    OffscreenTarget target;
    // Storage use only where the format offers it (RGBA8 always does; sRGB and BGRA may not).
    VkFormatProperties properties{};
    vkGetPhysicalDeviceFormatProperties(device.physical, format, &properties);
    target.storage = (properties.optimalTilingFeatures & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT) != 0;
    target.image =
        createImage2D(device, extent, format, 1,
                      VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                          VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                          (target.storage ? VkImageUsageFlags(VK_IMAGE_USAGE_STORAGE_BIT) : 0u),
                      "offscreen target");
    try {
        target.readback =
            createBuffer(device, VkDeviceSize(extent.width) * extent.height * 4,
                         VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                         "offscreen readback");
    } catch (...) {
        destroyImage(device, target.image);
        throw;
    }
    return target;
}

void destroyOffscreenTarget(const Device& device, OffscreenTarget& target) {
    destroyBuffer(device, target.readback);
    destroyImage(device, target.image);
}

void recordBeginTarget(VkCommandBuffer cmd, const OffscreenTarget& target) {
    ImageTransition t;
    t.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    t.newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    // Waits for the previous frame's copy out of the image before overwriting it.
    t.srcStage = VK_PIPELINE_STAGE_2_COPY_BIT;
    t.dstStage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
    t.dstAccess = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT;
    recordImageBarrier(cmd, target.image.handle, t);
}

void recordEndTarget(VkCommandBuffer cmd, const OffscreenTarget& target, bool copyToReadback) {
    ImageTransition t;
    t.oldLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    t.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    t.srcStage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
    t.srcAccess = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT;
    t.dstStage = VK_PIPELINE_STAGE_2_COPY_BIT | VK_PIPELINE_STAGE_2_BLIT_BIT;
    t.dstAccess = VK_ACCESS_2_TRANSFER_READ_BIT;
    recordImageBarrier(cmd, target.image.handle, t);
    if (!copyToReadback) return;

    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {target.image.extent.width, target.image.extent.height, 1};
    vkCmdCopyImageToBuffer(cmd, target.image.handle, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                           target.readback.handle, 1, &region);

    VkBufferMemoryBarrier2 toHost{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2};
    toHost.srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
    toHost.srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT;
    toHost.dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT;
    toHost.dstAccessMask = VK_ACCESS_2_HOST_READ_BIT;
    toHost.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    toHost.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    toHost.buffer = target.readback.handle;
    toHost.size = VK_WHOLE_SIZE;
    VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.bufferMemoryBarrierCount = 1;
    dep.pBufferMemoryBarriers = &toHost;
    vkCmdPipelineBarrier2(cmd, &dep);
}

std::vector<uint8_t> readbackPixels(const OffscreenTarget& target) {
    const auto* bytes = static_cast<const uint8_t*>(target.readback.mapped);
    return std::vector<uint8_t>(bytes, bytes + target.readback.size);
}

} // namespace estuary
