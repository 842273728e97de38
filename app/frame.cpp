#include "frame.h"
#include "error.h"

namespace estuary {

void drawFrame(Session& session, uint64_t frame, const FrameTarget& target) {
    SimBackend& backend = *session.backend;
    const uint32_t slots = backend.slotCount();
    const uint32_t slot = uint32_t(frame % slots);

    // 1. The only host wait: the slot's previous frame must be drawn before its command buffer
    //    (and, for the CPU backend, its staging buffer) is reused.
    if (frame >= slots)
        waitTimeline(session.device, session.frameTimeline, frame + 1 - slots,
                     "the frame timeline (frames-in-flight limit)");

    // 2. Simulate and write the field; the CUDA backend signals its timeline on the GPU.
    backend.simulate(frame, session.params);

    // 3. Record: take the field, draw it, hand it back.
    VkCommandBuffer cmd = session.commands[slot];
    VK_CHECK(vkResetCommandBuffer(cmd, 0));
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
    backend.recordBeforeDraw(cmd, frame);
    target.begin(cmd);
    recordDraw(session.renderer, cmd, slot, target.view, target.extent, session.view);
    if (target.overlay) target.overlay(cmd);
    target.end(cmd);
    backend.recordAfterDraw(cmd, frame);
    VK_CHECK(vkEndCommandBuffer(cmd));

    // 4. Submit: wait on the GPU for the simulation (and the swapchain), signal frame + 1.
    VkSemaphoreSubmitInfo waits[2];
    uint32_t waitCount = 0;
    if (auto simWait = backend.drawWait(frame)) waits[waitCount++] = *simWait;
    if (target.waitBinary) {
        VkSemaphoreSubmitInfo w{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
        w.semaphore = target.waitBinary;
        w.stageMask = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
        waits[waitCount++] = w;
    }
    VkSemaphoreSubmitInfo signals[3];
    uint32_t signalCount = 0;
    VkSemaphoreSubmitInfo drawn{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    drawn.semaphore = session.frameTimeline;
    drawn.value = frame + 1;
    drawn.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    signals[signalCount++] = drawn;
    if (VkSemaphore external = backend.drawnTimeline()) {
        drawn.semaphore = external;
        signals[signalCount++] = drawn;
    }
    if (target.signalBinary) {
        VkSemaphoreSubmitInfo s{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
        s.semaphore = target.signalBinary;
        s.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
        signals[signalCount++] = s;
    }
    VkCommandBufferSubmitInfo cmdInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
    cmdInfo.commandBuffer = cmd;
    VkSubmitInfo2 submit{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
    submit.waitSemaphoreInfoCount = waitCount;
    submit.pWaitSemaphoreInfos = waits;
    submit.commandBufferInfoCount = 1;
    submit.pCommandBufferInfos = &cmdInfo;
    submit.signalSemaphoreInfoCount = signalCount;
    submit.pSignalSemaphoreInfos = signals;
    VK_CHECK(vkQueueSubmit2(session.device.queue, 1, &submit, VK_NULL_HANDLE));
}

void waitFrameDrawn(Session& session, uint64_t frame) {
    waitTimeline(session.device, session.frameTimeline, frame + 1, "the frame timeline");
}

} // namespace estuary
