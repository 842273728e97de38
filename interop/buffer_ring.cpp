#include "estuary/interop/buffer_ring.h"
#include "vk_calls.h"

namespace estuary::interop {

BufferRing createBufferRing(const Context& context, VkCommandPool pool,
                            const FrameTimelines& timelines, const BufferRingDesc& desc) {
    if (timelines.slots == 0) throw runtimeError("createBufferRing: the timelines have no slots");
    if (desc.size == 0) throw runtimeError("createBufferRing: size must be at least 1 byte");
    if (desc.copies > 1)
        throw runtimeError(desc.name + ": copies = " + std::to_string(desc.copies) +
                           "; allowed: 0 (one buffer per slot) or 1 (one shared by every frame)");
    const uint32_t count = desc.copies == 1 ? 1 : timelines.slots;
    BufferRing ring;
    try { // every buffer made so far is released if a later one fails
        for (uint32_t slot = 0; slot < count; ++slot) {
            const std::string name =
                desc.name + (desc.copies == 1 ? ", shared" : ", slot " + std::to_string(slot));
            ring.buffers.push_back(
                createExportedBuffer(context, desc.size, desc.usage, name.c_str()));
            ring.cuda.push_back(importBuffer(context, ring.buffers.back()));
        }
        // CUDA owns the buffers between frames, as it owns the images of an ImageRing.
        submitAndWait(
            context, pool,
            [&](VkCommandBuffer cmd) {
                for (const ExportedBuffer& buffer : ring.buffers)
                    recordReleaseToExternal(cmd, context, buffer, VK_PIPELINE_STAGE_2_NONE,
                                            VK_ACCESS_2_NONE);
            },
            "the hand-over of a buffer ring to CUDA");
    } catch (...) {
        destroyBufferRing(context, ring);
        throw;
    }
    return ring;
}

void destroyBufferRing(const Context& context, BufferRing& ring) {
    for (CudaBuffer& buffer : ring.cuda)
        destroyCudaBuffer(buffer);
    for (ExportedBuffer& buffer : ring.buffers)
        destroyExportedBuffer(context, buffer);
    ring = BufferRing{};
}

void recordAcquire(VkCommandBuffer cmd, const Context& context, const BufferRing& ring,
                   uint64_t frame, VkPipelineStageFlags2 dstStage, VkAccessFlags2 dstAccess,
                   VkPipelineStageFlags2 waitStage) {
    recordAcquireFromExternal(cmd, context, vulkanSlot(ring, frame), dstStage, dstAccess,
                              waitStage);
}

void recordRelease(VkCommandBuffer cmd, const Context& context, const BufferRing& ring,
                   uint64_t frame, VkPipelineStageFlags2 srcStage) {
    recordReleaseToExternal(cmd, context, vulkanSlot(ring, frame), srcStage, VK_ACCESS_2_NONE);
}

} // namespace estuary::interop
