// A ring of plain (non-exported) R32_SFLOAT field images, each with a persistently mapped staging
// buffer holding its whole mip chain. Backends whose field is produced in host memory (the CPU
// simulation, the host-copy benchmark mode) write the staging buffer and let the draw submission
// copy it into the image — no extra submission, no extra wait.
#pragma once

#include "options.h"
#include "resources.h"

#include <vector>

namespace estuary {

struct StagedField {
    uint32_t levels = 1;
    std::vector<VkBufferImageCopy> regions; // one per level, into the staging buffer
    std::vector<Image> images;              // one per slot
    std::vector<Buffer> staging;            // one per slot
};

StagedField createStagedField(const Device& device, Extent grid, uint32_t slots);
void destroyStagedField(const Device& device, StagedField& field);
// Host pointer to `level` of `slot`'s staging buffer (tightly packed rows of floats).
float* stagedLevel(const StagedField& field, uint32_t slot, uint32_t level);
// Copies the slot's staging buffer into its image and leaves it SHADER_READ_ONLY for the fragment
// shader. Host writes to the (coherent) staging memory before vkQueueSubmit are visible to it.
void recordStagedUpload(VkCommandBuffer cmd, const StagedField& field, uint32_t slot);

} // namespace estuary
