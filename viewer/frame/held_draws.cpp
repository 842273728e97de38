// Hand-off batches (estuary_viewer_desc.handoff_batch; docs/PERFORMANCE.md, "The context
// switch"): a headless frame's recorded draw is held until its batch's last frame ends, then the
// batch goes to the queue in one vkQueueSubmit2, every draw waiting for the last frame's CUDA
// work. The CUDA side groups its slot waits the same way (interop's FrameTimelines::batch).
#include "cuda_side.h"
#include "viewer.h"
#include "vk_check.h"

#include <array>

namespace estuary::lib {
namespace {

// Whether the frame's draw waits for the rest of its batch (handoff_batch): headless Vulkan
// frames, unless something notes each submission as it happens (a recording, a server) or a fault
// is injected into this one.
bool holdsDraw(const estuary_viewer& v, uint64_t frame) {
    return v.handoffBatch > 1 && v.headless && !v.recorder && !v.server &&
           v.faultVulkanStall != frame && v.faultDeviceLost != frame;
}

// The last frame of `frame`'s batch: the CUDA hand-off's batches where it runs (its slot waits
// are grouped the same way), else by frame number.
uint64_t drawBatchLast(const estuary_viewer& v, uint64_t frame, bool cudaWait) {
    if (cudaWait) return cudaBatchLast(v, frame);
    return (frame / v.handoffBatch + 1) * v.handoffBatch - 1;
}

} // namespace

bool holdDraw(estuary_viewer& v, uint64_t frame, VkCommandBuffer commands, bool cudaWait,
              VkPipelineStageFlags2 waitStage) {
    if (!holdsDraw(v, frame)) {
        submitHeldDraws(v); // what came before goes first
        return false;
    }
    // Frames before the CUDA hand-off starts are batched by number, those after by its batches.
    if (!v.heldDraws.empty() && v.heldDraws.back().cudaWait != cudaWait) submitHeldDraws(v);
    v.heldDraws.push_back({frame, commands, cudaWait, waitStage});
    if (frame == drawBatchLast(v, frame, cudaWait)) submitHeldDraws(v);
    return true;
}

void submitHeldDraws(estuary_viewer& v) {
    if (v.heldDraws.empty()) return;
    const uint32_t count = uint32_t(v.heldDraws.size());
    const HeldDraw& last = v.heldDraws.back();
    // Every draw of the batch waits for its last frame's CUDA work, which was signalled after
    // the earlier frames' (signals are ordered across streams): one switch to Vulkan per batch.
    std::array<VkSemaphoreSubmitInfo, kMaxFramesInFlight> waits;
    std::array<VkSemaphoreSubmitInfo, 2 * kMaxFramesInFlight> signals;
    std::array<VkCommandBufferSubmitInfo, kMaxFramesInFlight> commands;
    std::array<VkSubmitInfo2, kMaxFramesInFlight> submits;
    for (uint32_t i = 0; i < count; ++i) {
        const HeldDraw& held = v.heldDraws[i];
        if (held.cudaWait) waits[i] = cudaDrawWait(v, last.frame, held.waitStage);
        signals[2 * i] = drawnSignal(v, held.frame);
        if (held.cudaWait) signals[2 * i + 1] = cudaDrawSignal(v, held.frame);
        commands[i] = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
        commands[i].commandBuffer = held.commands;
        VkSubmitInfo2& submit = submits[i];
        submit = {VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
        submit.waitSemaphoreInfoCount = held.cudaWait ? 1 : 0;
        submit.pWaitSemaphoreInfos = &waits[i];
        submit.commandBufferInfoCount = 1;
        submit.pCommandBufferInfos = &commands[i];
        submit.signalSemaphoreInfoCount = held.cudaWait ? 2 : 1;
        submit.pSignalSemaphoreInfos = &signals[2 * i];
    }
    v.heldDraws.clear(); // handed over, whether or not the submission succeeds
    try {
        VK_CHECK(vkQueueSubmit2(v.device.queue, count, submits.data(), VK_NULL_HANDLE));
    } catch (const Error& e) {
        noteDeviceLost(v, e);
        throw;
    }
}

} // namespace estuary::lib
