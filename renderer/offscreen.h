// A headless render target: a colour image the renderer draws into, plus a host-visible buffer the
// picture can be copied to for screenshots and tests. The caller owns it, records begin/end around
// its drawing, and waits for the GPU before reading pixels back.
#pragma once

#include "resources.h"

#include <vector>

namespace estuary {

struct OffscreenTarget : MoveOnly {
    // COLOR_ATTACHMENT | TRANSFER_SRC | TRANSFER_DST (the compute march copies in), and STORAGE
    // where the format offers it (`storage`: the points splat resolves in place)
    GpuImage image;
    bool storage = false;
    GpuBuffer readback; // host-visible, coherent, width * height * 4 bytes
};

// Formats with 4 bytes per texel only (RGBA8/BGRA8, UNORM or SRGB).
OffscreenTarget createOffscreenTarget(const Device& device, VkExtent2D extent,
                                      VkFormat format = VK_FORMAT_R8G8B8A8_UNORM);
void destroyOffscreenTarget(const Device& device, OffscreenTarget& target);

// UNDEFINED -> COLOR_ATTACHMENT_OPTIMAL: the previous contents are discarded.
void recordBeginTarget(VkCommandBuffer cmd, const OffscreenTarget& target);
// COLOR_ATTACHMENT_OPTIMAL -> TRANSFER_SRC_OPTIMAL; with copyToReadback, also copies the image into
// the readback buffer and makes the copy visible to host reads.
void recordEndTarget(VkCommandBuffer cmd, const OffscreenTarget& target, bool copyToReadback);
// The readback buffer's pixels, tightly packed rows. Only after the GPU finished the copy.
std::vector<uint8_t> readbackPixels(const OffscreenTarget& target);

} // namespace estuary
