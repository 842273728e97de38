// A picture tap: each frame's draw copies its finished picture into a host-visible buffer of its
// ring entry, and once the frame is drawn (the host waits for the entry anyway before reusing it)
// the pixels are there to read without any further wait. The recorder and the server each own
// one; the loop never waits for either's consumer.
#pragma once

#include "resources.h"

#include <cstdint>
#include <vector>

struct estuary_viewer;

namespace estuary::lib {

struct PictureTap {
    struct Staged {
        GpuBuffer buffer;
        uint64_t frame = UINT64_MAX;
        VkExtent2D extent{};
    };
    std::vector<Staged> entries; // one per host-ring entry
};

// In a frame's draw, after the picture is complete: copies `image` (TRANSFER_SRC_OPTIMAL,
// `extent`) into the entry's buffer (made or grown first; the entry's last frame is drawn).
void tapPicture(estuary_viewer& v, PictureTap& tap, VkCommandBuffer cmd, uint32_t entry,
                uint64_t frame, VkImage image, VkExtent2D extent);
// Once frame `frame` is drawn: its picture (4 bytes a texel, the target's order, extent in
// `Staged::extent`), or nullptr when this tap did not copy that frame. Taken once.
const PictureTap::Staged* takeTapped(PictureTap& tap, uint64_t frame);
// The buffers go (after the frames in flight are drawn).
void releaseTap(estuary_viewer& v, PictureTap& tap);

} // namespace estuary::lib
