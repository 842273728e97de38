// A simulation's outputs as plain (non-exported) Vulkan resources filled from host memory: per
// slot, each output image with a persistently mapped staging buffer holding its whole mip chain,
// and each output buffer as host-visible memory. Backends whose outputs are produced on the host
// (the CPU reference, the host-copy benchmark mode) write the mapped memory and let the draw
// submission copy the images — no extra submission, no extra wait.
#pragma once

#include "resources.h"
#include "simulation.h"

#include <vector>

namespace estuary {

struct StagedImage : MoveOnly {
    sim::ImageOutput output;
    std::vector<VkBufferImageCopy> regions; // one per level, into the staging buffer
    std::vector<Image> images;              // one per slot
    std::vector<Buffer> staging;            // one per slot
};

// Where a slot's host writes go, as the simulation's HostTargets (built once, no per-frame
// allocation): the staging levels of every image and the mapped buffers. `images` spans point
// into `levelPointers`: move-only, so no copy can point into another's storage.
struct StagedSlotTargets : MoveOnly {
    std::vector<std::vector<void*>> levelPointers;
    std::vector<sim::HostImageTarget> images;
    std::vector<void*> buffers;
    sim::HostTargets targets() const { return {images, buffers}; }
};

// Owns its Vulkan images and buffers: move-only.
struct StagedOutputs : MoveOnly {
    std::vector<StagedImage> images;
    std::vector<std::vector<Buffer>> buffers; // [output buffer][slot], host-visible and coherent
    std::vector<StagedSlotTargets> slots;
};

StagedOutputs createStagedOutputs(const Device& device, const sim::OutputLayout& layout,
                                  uint32_t slots);
void destroyStagedOutputs(const Device& device, StagedOutputs& outputs);
// Copies the slot's staging buffers into its images and leaves them SHADER_READ_ONLY for the
// shaders. Host writes to the (coherent) staging memory before vkQueueSubmit are visible to it.
void recordStagedUpload(VkCommandBuffer cmd, const StagedOutputs& outputs, uint32_t slot);
// The texel at (x, y) of level 0 of `image` in `slot`'s staging memory (channelCount floats).
float* stagedTexel(const StagedOutputs& outputs, uint32_t image, uint32_t slot, uint32_t x,
                   uint32_t y);

} // namespace estuary
