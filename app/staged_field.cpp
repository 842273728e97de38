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
    recordUploadForSampling(cmd, field.staging[slot].handle, field.images[slot].handle,
                            field.regions);
}

} // namespace estuary
