// A picture tap: each frame's draw copies its finished picture into a host-visible buffer of the
// tap's pool, and once the frame is drawn (the host waits for its ring entry anyway before reusing
// it) the pixels are there to read without any further wait. The recorder and the server each own
// one. A consumer that reads on the loop's thread takes a picture and is done with it before the
// next draw (the server); one that reads later on a thread of its own holds it and releases it
// from there (the recorder's encoder), and the pool keeps `spare` buffers beyond one per frame in
// flight for such held pictures: the draw waits for a release only when all of them are held.
//
// The buffers are in host-cached memory where the device has it (NVIDIA's host-coherent-only
// memory is write-combined: the CPU reads it an order of magnitude slower), invalidated before each
// read where that memory is not coherent.
#pragma once

#include "resources.h"

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

struct estuary_viewer;

namespace estuary::lib {

struct PictureTap {
    struct Staged {
        GpuBuffer buffer;
        uint64_t frame = UINT64_MAX; // the frame whose draw writes it, until taken
        VkExtent2D extent{};
        bool coherent = true;
        bool held = false; // taken by a consumer that releases it later (releaseTapped)
    };
    std::vector<std::unique_ptr<Staged>> pool; // stable addresses: consumers keep pointers
    uint32_t spare = 0;                        // buffers beyond the frames in flight, for holding
    VkDevice device = VK_NULL_HANDLE;
    std::mutex mutex; // `held`, which a consumer's thread clears
    std::condition_variable released;
    double waitMs = 0;  // the draws' waits for a held buffer, in all
    uint64_t waits = 0; // draws that waited
};

// The memory properties a readback buffer asks for, among those of `types` allowed by `typeBits`:
// host-visible and host-cached, coherent where such a type exists; else host-visible and
// host-coherent (uncached); 0 when no type is host-visible.
VkMemoryPropertyFlags readbackMemoryFlags(const VkPhysicalDeviceMemoryProperties& types,
                                          uint32_t typeBits);

// In a frame's draw, after the picture is complete: copies `image` (TRANSFER_SRC_OPTIMAL,
// `extent`) into a free buffer of the pool (made or grown first), waiting for a held one to be
// released when all are in use. (`entry`, the frame's ring entry, no longer picks the buffer.)
void tapPicture(estuary_viewer& v, PictureTap& tap, VkCommandBuffer cmd, uint32_t entry,
                uint64_t frame, VkImage image, VkExtent2D extent);
// Once frame `frame` is drawn: its picture (4 bytes a texel, the target's order, extent in
// `Staged::extent`), or nullptr when this tap did not copy that frame. Taken once. Unless `hold`,
// the buffer may be written by the next draw: read it before then. Held, it stays until
// releaseTapped, which any thread may call.
const PictureTap::Staged* takeTapped(PictureTap& tap, uint64_t frame, bool hold = false);
void releaseTapped(PictureTap& tap, const PictureTap::Staged* staged);
// The buffers go (after the frames in flight are drawn, and nothing held).
void releaseTap(estuary_viewer& v, PictureTap& tap);

} // namespace estuary::lib
