// The buffer half of the frame protocol, ImageRing's twin: one Vulkan-allocated, exported buffer
// per slot, imported into CUDA as a mapped device pointer. Between frames every buffer is owned by
// VK_QUEUE_FAMILY_EXTERNAL (CUDA); a draw acquires its slot's buffer (e.g. for vertex pulling) and
// releases it in the same submission. Synchronized by the frame's FrameTimelines:
//   CUDA:   cudaBeginFrame(t, f) → write cudaSlot(ring, f).pointer → cudaEndFrame(t, f)
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

struct BufferRingDesc {
    VkDeviceSize size = 0; // bytes per slot
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                               VK_BUFFER_USAGE_VERTEX_BUFFER_BIT |
                               VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    std::string name = "buffer ring";
    uint32_t copies = 0; // 0: one per slot; 1: one shared by every frame (see ImageRingDesc)
};

// Owns its buffers and imports: move-only.
struct BufferRing : MoveOnly {
    std::vector<ExportedBuffer> buffers; // Vulkan side, one per slot
    std::vector<CudaBuffer> cuda;        // CUDA side: the mapped device pointers
};

// One slot per slot of `timelines`. Allocates, exports and maps every slot and hands them to CUDA
// with one blocking submission on `pool`'s queue (start-up only). Nothing is leaked on failure.
BufferRing createBufferRing(const Context& context, VkCommandPool pool,
                            const FrameTimelines& timelines, const BufferRingDesc& desc);
void destroyBufferRing(const Context& context, BufferRing& ring);

inline uint32_t slotCount(const BufferRing& ring) {
    return uint32_t(ring.buffers.size());
}
inline const CudaBuffer& cudaSlot(const BufferRing& ring, uint64_t frame) {
    return ring.cuda[frame % ring.cuda.size()];
}
inline const ExportedBuffer& vulkanSlot(const BufferRing& ring, uint64_t frame) {
    return ring.buffers[frame % ring.buffers.size()];
}

// Takes frame's buffer from CUDA for reads at dstStage/dstAccess; `waitStage` as for images.
void recordAcquire(VkCommandBuffer cmd, const Context& context, const BufferRing& ring,
                   uint64_t frame, VkPipelineStageFlags2 dstStage, VkAccessFlags2 dstAccess,
                   VkPipelineStageFlags2 waitStage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT);
// Hands frame's buffer back to CUDA after the reads at srcStage.
void recordRelease(VkCommandBuffer cmd, const Context& context, const BufferRing& ring,
                   uint64_t frame, VkPipelineStageFlags2 srcStage);

} // namespace estuary::interop
