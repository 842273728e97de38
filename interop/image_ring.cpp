#include "estuary/interop/image_ring.h"
#include "vk_calls.h"

namespace estuary::interop {

ImageRing createImageRing(const Context& context, VkCommandPool pool,
                          const FrameTimelines& timelines, const ImageRingDesc& desc) {
    if (timelines.slots == 0) throw runtimeError("createImageRing: the timelines have no slots");
    if (desc.copies > 1)
        throw runtimeError(desc.name + ": copies = " + std::to_string(desc.copies) +
                           "; allowed: 0 (one image per slot) or 1 (one shared by every frame)");
    const uint32_t count = desc.copies == 1 ? 1 : timelines.slots;
    ImageRing ring;
    try { // every image made so far is released if a later one fails
        for (uint32_t slot = 0; slot < count; ++slot) {
            const std::string name =
                desc.name + (desc.copies == 1 ? ", shared" : ", slot " + std::to_string(slot));
            ExportedImageDesc image;
            image.format = desc.format;
            image.extent = desc.extent;
            image.shape = desc.shape;
            image.mipLevels = desc.mipLevels;
            image.usage = desc.usage;
            image.name = name.c_str();
            ring.images.push_back(createExportedImage(context, image));
            ring.cuda.push_back(importImage(context, ring.images.back()));
        }
        // CUDA owns the images between frames: GENERAL layout, VK_QUEUE_FAMILY_EXTERNAL.
        submitAndWait(
            context, pool,
            [&](VkCommandBuffer cmd) {
                for (const ExportedImage& image : ring.images)
                    recordReleaseToExternal(cmd, context, image, VK_IMAGE_LAYOUT_UNDEFINED,
                                            VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE);
            },
            "the hand-over of an image ring to CUDA");
    } catch (...) {
        destroyImageRing(context, ring);
        throw;
    }
    return ring;
}

void destroyImageRing(const Context& context, ImageRing& ring) {
    // CUDA's mappings go before the Vulkan memory they map.
    for (CudaImage& image : ring.cuda)
        destroyCudaImage(image);
    for (ExportedImage& image : ring.images)
        destroyExportedImage(context, image);
    ring = ImageRing{};
}

void recordAcquire(VkCommandBuffer cmd, const Context& context, const ImageRing& ring,
                   uint64_t frame, VkImageLayout newLayout, VkPipelineStageFlags2 dstStage,
                   VkAccessFlags2 dstAccess, VkPipelineStageFlags2 waitStage) {
    recordAcquireFromExternal(cmd, context, vulkanSlot(ring, frame), newLayout, dstStage, dstAccess,
                              waitStage);
}

void recordRelease(VkCommandBuffer cmd, const Context& context, const ImageRing& ring,
                   uint64_t frame, VkImageLayout layout, VkPipelineStageFlags2 srcStage) {
    // Reads need no availability operation, so no source access.
    recordReleaseToExternal(cmd, context, vulkanSlot(ring, frame), layout, srcStage,
                            VK_ACCESS_2_NONE);
}

} // namespace estuary::interop
