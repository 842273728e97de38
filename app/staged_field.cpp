#include "staged_field.h"

#include <string>

namespace estuary {

StagedField createStagedField(const Device& device, Extent grid, uint32_t slots) {
    StagedField field;
    const VkExtent2D extent{grid.width, grid.height};
    field.levels = fullMipCount(extent.width, extent.height);
    VkDeviceSize offset = 0;
    for (uint32_t level = 0; level < field.levels; ++level) {
        const VkExtent2D e = mipExtent(extent, level);
        VkBufferImageCopy region{};
        region.bufferOffset = offset;
        region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, 0, 1};
        region.imageExtent = {e.width, e.height, 1};
        field.regions.push_back(region);
        offset += VkDeviceSize(e.width) * e.height * sizeof(float);
    }
    for (uint32_t slot = 0; slot < slots; ++slot) {
        const std::string name = "field slot " + std::to_string(slot);
        field.images.push_back(createImage2D(device, extent, VK_FORMAT_R32_SFLOAT, field.levels,
                                             VK_IMAGE_USAGE_SAMPLED_BIT |
                                                 VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                                 VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                             name.c_str()));
        field.staging.push_back(
            createBuffer(device, offset, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                         (name + " staging").c_str()));
    }
    return field;
}

void destroyStagedField(const Device& device, StagedField& field) {
    for (auto& image : field.images)
        destroyImage(device, image);
    for (auto& buffer : field.staging)
        destroyBuffer(device, buffer);
    field = StagedField{};
}

float* stagedLevel(const StagedField& field, uint32_t slot, uint32_t level) {
    return reinterpret_cast<float*>(static_cast<uint8_t*>(field.staging[slot].mapped) +
                                    field.regions[level].bufferOffset);
}

void recordStagedUpload(VkCommandBuffer cmd, const StagedField& field, uint32_t slot) {
    const VkImage image = field.images[slot].handle;
    // Every level is overwritten, so the old contents are discarded (UNDEFINED); the source stage
    // orders this after the previous draw that sampled the image.
    ImageTransition toCopy;
    toCopy.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    toCopy.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    toCopy.srcStage = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;
    toCopy.dstStage = VK_PIPELINE_STAGE_2_COPY_BIT;
    toCopy.dstAccess = VK_ACCESS_2_TRANSFER_WRITE_BIT;
    recordImageBarrier(cmd, image, toCopy);
    vkCmdCopyBufferToImage(cmd, field.staging[slot].handle, image,
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, uint32_t(field.regions.size()),
                           field.regions.data());
    ImageTransition toSample;
    toSample.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    toSample.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    toSample.srcStage = VK_PIPELINE_STAGE_2_COPY_BIT;
    toSample.srcAccess = VK_ACCESS_2_TRANSFER_WRITE_BIT;
    toSample.dstStage = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;
    toSample.dstAccess = VK_ACCESS_2_SHADER_SAMPLED_READ_BIT;
    recordImageBarrier(cmd, image, toSample);
}

} // namespace estuary
