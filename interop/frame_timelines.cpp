#include "frame_timelines.h"
#include "errors.h"

#include <string>

namespace estuary::interop {

FrameTimelines createFrameTimelines(const Device& device, uint32_t slots, const char* name) {
    if (slots == 0) throw runtimeError("createFrameTimelines: slots must be at least 1");
    FrameTimelines t;
    t.slots = slots;
    const std::string base = name;
    t.written = createSharedTimeline(device, (base + ": written (CUDA signals)").c_str());
    try {
        t.released = createSharedTimeline(device, (base + ": released (Vulkan signals)").c_str());
    } catch (...) {
        destroySharedTimeline(device, t.written);
        throw;
    }
    return t;
}

void destroyFrameTimelines(const Device& device, FrameTimelines& t) {
    destroySharedTimeline(device, t.released);
    destroySharedTimeline(device, t.written);
    t = FrameTimelines{};
}

void cudaBeginFrame(FrameTimelines& t, uint64_t frame, cudaStream_t stream) {
    if (!t.firstFrame) t.firstFrame = frame;
    // The timelines start at 0 whatever the first frame's number; frames before first + slots
    // have no earlier user of their slot, and waiting for one would deadlock.
    if (frame >= *t.firstFrame + t.slots) cudaWaitTimeline(t.released, frame + 1 - t.slots, stream);
}

void cudaEndFrame(const FrameTimelines& t, uint64_t frame, cudaStream_t stream) {
    cudaSignalTimeline(t.written, frame + 1, stream);
}

VkSemaphoreSubmitInfo drawWaitInfo(const FrameTimelines& t, uint64_t frame,
                                   VkPipelineStageFlags2 waitStage) {
    VkSemaphoreSubmitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    wait.semaphore = t.written.semaphore;
    wait.value = frame + 1;
    wait.stageMask = waitStage;
    return wait;
}

VkSemaphoreSubmitInfo drawSignalInfo(const FrameTimelines& t, uint64_t frame) {
    VkSemaphoreSubmitInfo signal{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    signal.semaphore = t.released.semaphore;
    signal.value = frame + 1;
    // Signalled after everything in the submission, the release barriers included.
    signal.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    return signal;
}

} // namespace estuary::interop
