// The frame: wait (frames-in-flight limit) → simulate (GPU signals) → record draw → submit (GPU
// waits for the simulation, signals the render timeline). One function for headless and windowed
// runs; a FrameTarget says where the picture goes and what extra semaphores the submission carries.
#pragma once

#include "session.h"

#include <functional>

namespace estuary {

struct FrameTarget {
    VkImageView view = VK_NULL_HANDLE;
    VkExtent2D extent{};
    std::function<void(VkCommandBuffer)> begin; // target → COLOR_ATTACHMENT_OPTIMAL
    std::function<void(VkCommandBuffer)> end;   // target → present / readback
    // Extra recording after the field is drawn, inside the target's layout (UI overlay).
    std::function<void(VkCommandBuffer)> overlay;
    // Tests: called twice in the draw's command buffer while the slot's outputs are Vulkan's
    // (images in SHADER_READ_ONLY_OPTIMAL, to be left so), to record readbacks of what the draw
    // sees: before the draw (afterDraw false) and after it, before the outputs go back to the
    // simulation.
    std::function<void(VkCommandBuffer, const SimBackend& backend, uint32_t slot, bool afterDraw)>
        inspectOutputs;
    VkSemaphore waitBinary = VK_NULL_HANDLE;   // e.g. swapchain image acquired
    VkSemaphore signalBinary = VK_NULL_HANDLE; // e.g. ready to present
};

void drawFrame(Session& session, uint64_t frame, const FrameTarget& target);

// Blocks until frame `frame` (and every earlier one) has been drawn.
void waitFrameDrawn(Session& session, uint64_t frame);

// Waits for the last frame drawn and collects the GPU times of the frames still in flight, so the
// history is complete (end of a run or a benchmark mode).
void finishFrames(Session& session);

} // namespace estuary
