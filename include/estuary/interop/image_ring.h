// The image half of the frame protocol: one Vulkan-allocated, exported image per slot (frame in
// flight) of any shape (2D, 3D, 2D array, cube), each with its full mip chain, imported into CUDA
// as a mipmapped array with one surface per level. Between frames every image is owned by
// VK_QUEUE_FAMILY_EXTERNAL in GENERAL layout, i.e. CUDA's; a draw acquires its slot's image and
// releases it again in the same submission. Synchronization comes from FrameTimelines
// (frame_timelines.h), shared by all rings of a frame:
//   CUDA:   cudaBeginFrame(t, f) → write ring.cuda[slot].surfaces[level] → cudaEndFrame(t, f)
//   Vulkan: wait drawWaitInfo(t, f) → recordAcquire(ring, f) → read → recordRelease(ring, f)
//           → signal drawSignalInfo(t, f)
// Plain struct with create/destroy; destroy only once no GPU work uses the ring.
#pragma once

#include "cuda_import.h"
#include "exported.h"
#include "frame_timelines.h"

#include <string>
#include <vector>

namespace estuary::interop {

struct ImageRingDesc {
    VkFormat format = VK_FORMAT_R32_SFLOAT; // one of shareableFormats()
    VkExtent2D extent{};
    ImageShape shape;       // 2D unless set: 3D, 2D array, cube (see ExportedImageDesc)
    uint32_t mipLevels = 0; // 0: the full chain down to 1x1(x1)
    VkImageUsageFlags usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                              VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    std::string name = "image ring";
    // 0: one image per slot of the timelines (CUDA writes frame f + 1 while Vulkan draws f); 1:
    // one image shared by every frame, which CUDA may write only once every earlier frame is drawn
    // (cudaWaitAllDrawn).
    uint32_t copies = 0;
};

// Owns its images and imports: move-only.
struct ImageRing : MoveOnly {
    std::vector<ExportedImage> images; // Vulkan side, one per slot
    std::vector<CudaImage> cuda;       // CUDA side: mipmapped array, level arrays, surfaces
};

// One image per slot of `timelines` (the ring and the protocol must agree, so the ring takes the
// count from it), or one for all (desc.copies = 1). Allocates, exports and imports every slot, then
// hands all of them to CUDA with one blocking submission on `pool`'s queue (start-up only). Throws
// unsupported() naming format, usage or extent when the device cannot export such an image; nothing
// is leaked on failure.
ImageRing createImageRing(const Context& context, VkCommandPool pool,
                          const FrameTimelines& timelines, const ImageRingDesc& desc);
void destroyImageRing(const Context& context, ImageRing& ring);

inline uint32_t slotCount(const ImageRing& ring) {
    return uint32_t(ring.images.size());
}
inline const CudaImage& cudaSlot(const ImageRing& ring, uint64_t frame) {
    return ring.cuda[frame % ring.cuda.size()];
}
inline const ExportedImage& vulkanSlot(const ImageRing& ring, uint64_t frame) {
    return ring.images[frame % ring.images.size()];
}

// Takes frame's image from CUDA into `newLayout` for reads at dstStage/dstAccess. `waitStage` is
// the stage of the submission's wait on FrameTimelines::written.
void recordAcquire(VkCommandBuffer cmd, const Context& context, const ImageRing& ring,
                   uint64_t frame, VkImageLayout newLayout, VkPipelineStageFlags2 dstStage,
                   VkAccessFlags2 dstAccess,
                   VkPipelineStageFlags2 waitStage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT);
// Hands frame's image back to CUDA after the reads in `layout` at srcStage.
void recordRelease(VkCommandBuffer cmd, const Context& context, const ImageRing& ring,
                   uint64_t frame, VkImageLayout layout, VkPipelineStageFlags2 srcStage);

} // namespace estuary::interop
