// The frame: wait (frames-in-flight limit) → simulate (GPU signals) → record draw → submit (GPU
// waits for the simulation, signals the render timeline). One function for headless and windowed
// runs; a FrameTarget says where the picture goes and what extra semaphores the submission carries.
// A session with the OpenGL consumer draws its frames through gl_frames.h instead (the same steps
// with GL's hand-off); these three functions pass such frames on.
#pragma once

#include "session.h"

#include <functional>

namespace estuary {

struct FrameTarget {
    VkImageView view = VK_NULL_HANDLE;
    VkImage image = VK_NULL_HANDLE; // where the compute-marched volume is copied (offscreen)
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
    // Set where begin, end and overlay record the same commands whenever the key is the same (the
    // benchmark's offscreen target): a command buffer recorded for this target, slot and view is
    // then submitted again instead of recorded anew, which takes command recording off the host's
    // per-frame path. Unset (the window, tests' inspection): recorded every frame.
    std::optional<uint64_t> repeatKey;
    VkSemaphore waitBinary = VK_NULL_HANDLE;   // e.g. swapchain image acquired
    VkSemaphore signalBinary = VK_NULL_HANDLE; // e.g. ready to present
    // The OpenGL consumer's target: a framebuffer object (0: the window's), of `extent`, and the
    // tests' twin of inspectOutputs (the texture of the slot's displayed image).
    uint32_t glFramebuffer = 0;
    std::function<void(uint32_t texture, uint32_t slot, bool afterDraw)> inspectGl;
};

void drawFrame(Session& session, uint64_t frame, const FrameTarget& target);

// The host's side of a frame's times, shared by both consumers: the interval since the previous
// frame began, and the frame's entry in the history (begin); the last frame's interval (end).
void beginFrameTiming(Session& session, uint64_t frame);
void endFrameTiming(Session& session, uint64_t last);

// Blocks until frame `frame` (and every earlier one) has been drawn.
void waitFrameDrawn(Session& session, uint64_t frame);

// Waits for the last frame drawn and collects the GPU times of the frames still in flight, so the
// history is complete (end of a run or a benchmark mode).
void finishFrames(Session& session);

} // namespace estuary
