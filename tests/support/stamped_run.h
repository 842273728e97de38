// Pipelining checks through the public API: a simulation of the app (sim_run.h) runs on a headless
// viewer (validation on) with each frame's index stamped into its shown image and the tail of each
// buffer, and every frame reads back, with estuary_frame_read_image/_read_buffer in its own draw,
// what the draw sees of its outputs before and after drawing. A synchronization bug (the draw
// reading an older or newer frame, or the writer overwriting the slot while it is drawn) shows
// as a wrong frame.
#pragma once

#include "options.h"
#include "simulation.h"

#include <array>
#include <cstdint>
#include <vector>

namespace estuary::test {

struct StampedRun {
    // Per frame: channel 0 of texel (0,0) of the shown image's level 0, before and after the draw.
    std::vector<float> seenBefore, seenAfter;
    // Per frame, before the draw, for simulations with more outputs (counter_simulation.h): the
    // shown image's texel (1,1) of level 0 and texel (0,0) of its last level, image 1's the same,
    // and the first four words of buffer 0. Empty where absent (and for the OpenGL consumer).
    std::vector<std::array<float, 4>> displayTexel, displayLastLevel;
    std::vector<std::array<float, 4>> secondTexel, secondLastLevel;
    std::vector<std::array<uint32_t, 4>> bufferWords;
    // Per frame, for simulations with buffers: the last 16 bytes of buffer 0 as floats, before the
    // draw and after it; the last holds the buffer's frame stamp.
    std::vector<std::array<float, 4>> bufferTailBefore, bufferTailAfter;
    // The validation layer's messages and, for the OpenGL consumer, OpenGL's debug errors.
    uint32_t validationMessages = 0;
    // Frames where any stamp read (the shown image's before and after the draw, and buffer 0's
    // where there is one) is not the frame's own index.
    uint32_t wrongFrames() const;
    // For the counter simulation: frames where any output read is not what it writes after
    // (frame + 1) * stepsPerFrame steps.
    uint32_t wrongOutputs(uint64_t stepsPerFrame) const;
};

// Runs `frames` frames of `simulation` (default: the options' one) on the options' grid, backend
// (cpu, or CUDA where the viewer has it; `hostCopy` for the host-copy run), frames in flight and
// consumer (options.consumer, options.glHandoff: the OpenGL consumer reads through OpenGL, images
// only).
StampedRun runStampedFrames(const Options& options, uint32_t frames,
                            const sim::SimDefinition* simulation = nullptr, bool hostCopy = false);

} // namespace estuary::test
