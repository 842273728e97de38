#include "image_ring.h"
#include "errors.h"

namespace estuary::interop {

ImageRing createImageRing(const Device& device, VkCommandPool pool, const FrameTimelines& timelines,
                          const ImageRingDesc& desc) {
    if (timelines.slots == 0) throw runtimeError("createImageRing: the timelines have no slots");
    ImageRing ring;
    try { // every slot made so far is released if a later one fails
        for (uint32_t slot = 0; slot < timelines.slots; ++slot) {
            const std::string name = desc.name + ", slot " + std::to_string(slot);
            ExportedImageDesc image;
            image.format = desc.format;
            image.extent = desc.extent;
            image.shape = desc.shape;
            image.mipLevels = desc.mipLevels;
            image.usage = desc.usage;
            image.name = name.c_str();
            ring.images.push_back(createExportedImage(device, image));
            ring.cuda.push_back(importImage(device, ring.images.back()));
        }
        // CUDA owns the images between frames: GENERAL layout, VK_QUEUE_FAMILY_EXTERNAL.
        submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
            for (const ExportedImage& image : ring.images)
                recordReleaseToExternal(cmd, device, image, VK_IMAGE_LAYOUT_UNDEFINED,
                                        VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE);
        });
    } catch (...) {
        destroyImageRing(device, ring);
        throw;
    }
    return ring;
}

void destroyImageRing(const Device& device, ImageRing& ring) {
    // CUDA's mappings go before the Vulkan memory they map.
    for (CudaImage& image : ring.cuda)
        destroyCudaImage(image);
    for (ExportedImage& image : ring.images)
        destroyExportedImage(device, image);
    ring = ImageRing{};
}

void recordAcquire(VkCommandBuffer cmd, const Device& device, const ImageRing& ring, uint64_t frame,
                   VkImageLayout newLayout, VkPipelineStageFlags2 dstStage,
                   VkAccessFlags2 dstAccess, VkPipelineStageFlags2 waitStage) {
    recordAcquireFromExternal(cmd, device, vulkanSlot(ring, frame), newLayout, dstStage, dstAccess,
                              waitStage);
}

void recordRelease(VkCommandBuffer cmd, const Device& device, const ImageRing& ring, uint64_t frame,
                   VkImageLayout layout, VkPipelineStageFlags2 srcStage) {
    // Reads need no availability operation, so no source access.
    recordReleaseToExternal(cmd, device, vulkanSlot(ring, frame), layout, srcStage,
                            VK_ACCESS_2_NONE);
}

} // namespace estuary::interop
