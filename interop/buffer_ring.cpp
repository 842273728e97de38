#include "buffer_ring.h"
#include "errors.h"

namespace estuary::interop {

BufferRing createBufferRing(const Device& device, VkCommandPool pool,
                            const FrameTimelines& timelines, const BufferRingDesc& desc) {
    if (timelines.slots == 0) throw runtimeError("createBufferRing: the timelines have no slots");
    if (desc.size == 0) throw runtimeError("createBufferRing: size must be at least 1 byte");
    BufferRing ring;
    try { // every slot made so far is released if a later one fails
        for (uint32_t slot = 0; slot < timelines.slots; ++slot) {
            const std::string name = desc.name + ", slot " + std::to_string(slot);
            ring.buffers.push_back(
                createExportedBuffer(device, desc.size, desc.usage, name.c_str()));
            ring.cuda.push_back(importBuffer(device, ring.buffers.back()));
        }
        // CUDA owns the buffers between frames, as it owns the images of an ImageRing.
        submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
            for (const ExportedBuffer& buffer : ring.buffers)
                recordReleaseToExternal(cmd, device, buffer, VK_PIPELINE_STAGE_2_NONE,
                                        VK_ACCESS_2_NONE);
        });
    } catch (...) {
        destroyBufferRing(device, ring);
        throw;
    }
    return ring;
}

void destroyBufferRing(const Device& device, BufferRing& ring) {
    for (CudaBuffer& buffer : ring.cuda)
        destroyCudaBuffer(buffer);
    for (ExportedBuffer& buffer : ring.buffers)
        destroyExportedBuffer(device, buffer);
    ring = BufferRing{};
}

void recordAcquire(VkCommandBuffer cmd, const Device& device, const BufferRing& ring,
                   uint64_t frame, VkPipelineStageFlags2 dstStage, VkAccessFlags2 dstAccess,
                   VkPipelineStageFlags2 waitStage) {
    recordAcquireFromExternal(cmd, device, vulkanSlot(ring, frame), dstStage, dstAccess, waitStage);
}

void recordRelease(VkCommandBuffer cmd, const Device& device, const BufferRing& ring,
                   uint64_t frame, VkPipelineStageFlags2 srcStage) {
    recordReleaseToExternal(cmd, device, vulkanSlot(ring, frame), srcStage, VK_ACCESS_2_NONE);
}

} // namespace estuary::interop
