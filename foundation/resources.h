// Plain Vulkan resources (buffers, images of any shape with views) and the small command helpers
// everything uses: image barriers, one-shot submissions for set-up and readback. No allocator:
// estuary allocates a handful of objects at start-up and none per frame. The structs (GpuImage,
// GpuBuffer, ImageShape) and the pure shape rules are interop's types.h, shared with the library.
#pragma once

#include "context.h"
#include "gpu_wait.h" // gpuWaitTimeoutNs, formatSeconds

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace estuary {

uint32_t findMemoryType(const Device& device, uint32_t typeBits, VkMemoryPropertyFlags flags);
VkExtent2D mipExtent(VkExtent2D base, uint32_t level);
uint32_t mipDepth(uint32_t depth, uint32_t level);
// Size in bytes of one texel; 0 for formats estuary does not use.
uint32_t formatTexelSize(VkFormat format);

// Texels in level `level` of all layers (or all slices) of an image.
VkDeviceSize levelTexels(VkExtent2D extent, const ImageShape& shape, uint32_t level);

// Buffer↔image copy regions for levels 0..levels-1 of an image of `extent` and `shape` with
// `texelBytes` per texel, packed level after level in a buffer, each level's offset rounded up to
// `alignment` (a power of two; 1 packs tightly). Within a level, rows are tight, then slices (3D)
// or layers (arrays, cubes) one after another. `totalBytes` receives the buffer size they need.
std::vector<VkBufferImageCopy> mipChainRegions(VkExtent2D extent, uint32_t levels,
                                               VkDeviceSize texelBytes, VkDeviceSize alignment,
                                               VkDeviceSize& totalBytes,
                                               const ImageShape& shape = {});

GpuBuffer createBuffer(const Device& device, VkDeviceSize size, VkBufferUsageFlags usage,
                       VkMemoryPropertyFlags memoryFlags, const char* name);
void destroyBuffer(const Device& device, GpuBuffer& buffer);

// A device-local, optimal-tiled image of `shape` with a view over all its levels and layers.
GpuImage createImage(const Device& device, VkExtent2D extent, const ImageShape& shape,
                     VkFormat format, uint32_t mipLevels, VkImageUsageFlags usage,
                     const char* name);
inline GpuImage createImage2D(const Device& device, VkExtent2D extent, VkFormat format,
                              uint32_t mipLevels, VkImageUsageFlags usage, const char* name) {
    return createImage(device, extent, {}, format, mipLevels, usage, name);
}
void destroyImage(const Device& device, GpuImage& image);
// The depth aspect for the depth-only formats, else colour (estuary makes no stencil images).
VkImageAspectFlags aspectOf(VkFormat format);
VkImageView createImageView(const Device& device, VkImage image, VkFormat format,
                            const ImageShape& shape, uint32_t mipLevels, const char* name);
inline VkImageView createImageView2D(const Device& device, VkImage image, VkFormat format,
                                     uint32_t mipLevels, const char* name) {
    return createImageView(device, image, format, {}, mipLevels, name);
}

struct ImageTransition {
    VkImageLayout oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkImageLayout newLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkPipelineStageFlags2 srcStage = VK_PIPELINE_STAGE_2_NONE;
    VkAccessFlags2 srcAccess = VK_ACCESS_2_NONE;
    VkPipelineStageFlags2 dstStage = VK_PIPELINE_STAGE_2_NONE;
    VkAccessFlags2 dstAccess = VK_ACCESS_2_NONE;
    uint32_t srcQueueFamily = VK_QUEUE_FAMILY_IGNORED;
    uint32_t dstQueueFamily = VK_QUEUE_FAMILY_IGNORED;
    uint32_t baseMip = 0;
    uint32_t mipCount = VK_REMAINING_MIP_LEVELS;
    VkImageAspectFlags aspect = VK_IMAGE_ASPECT_COLOR_BIT;
};

void recordImageBarrier(VkCommandBuffer cmd, VkImage image, const ImageTransition& t);
// A global memory barrier: everything `srcAccess` did at `srcStage` before, made available to
// `dstAccess` at `dstStage` after.
void recordMemoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags2 srcStage,
                         VkAccessFlags2 srcAccess, VkPipelineStageFlags2 dstStage,
                         VkAccessFlags2 dstAccess);

// One vkQueueSubmit2 of `cmd` on the device's queue, after `waits` and before `signals`.
void submitCommands(const Device& device, VkCommandBuffer cmd,
                    std::span<const VkSemaphoreSubmitInfo> waits = {},
                    std::span<const VkSemaphoreSubmitInfo> signals = {});

// Records with `record`, submits on the device's queue (after `gpuWait` on the GPU, if given) and
// waits for the queue to finish. For set-up, teardown and tests only: never in the frame loop.
void submitAndWait(const Device& device, VkCommandPool pool,
                   const std::function<void(VkCommandBuffer)>& record,
                   const VkSemaphoreSubmitInfo* gpuWait = nullptr);

// A timeline semaphore starting at 0; `exportable` adds opaque-fd export for CUDA.
VkSemaphore createTimelineSemaphore(const Device& device, bool exportable, const char* name);
// Host wait until the timeline reaches `value`, at most `timeoutNs`. False on timeout; other
// failures throw (VK_ERROR_DEVICE_LOST says so).
bool waitTimelineFor(const Device& device, VkSemaphore semaphore, uint64_t value,
                     uint64_t timeoutNs);
// The same, throwing a runtime error on timeout that names `what`, the value awaited, the value
// reached and the time waited.
void waitTimeline(const Device& device, VkSemaphore semaphore, uint64_t value, const char* what,
                  uint64_t timeoutNs = gpuWaitTimeoutNs());
uint64_t timelineValue(const Device& device, VkSemaphore semaphore);

VkCommandPool createCommandPool(const Device& device, VkCommandPoolCreateFlags flags,
                                const char* name);

// Records an upload into `image` from `source` with `regions`, then makes it SHADER_READ_ONLY for
// vertex, fragment and compute shaders. The first barrier also orders the copy after earlier
// shader reads of the image, so a ring slot can be refilled each frame. From `oldLayout`
// UNDEFINED the old contents are discarded; from SHADER_READ_ONLY_OPTIMAL the texels outside
// `regions` are kept (rows added to an atlas).
void recordUploadForSampling(VkCommandBuffer cmd, VkBuffer source, VkImage image,
                             std::span<const VkBufferImageCopy> regions,
                             VkImageLayout oldLayout = VK_IMAGE_LAYOUT_UNDEFINED);
// Start-up and tests: stages `bytes` in a temporary buffer, uploads, waits.
void uploadForSampling(const Device& device, VkCommandPool pool, VkImage image,
                       std::span<const uint8_t> bytes, std::span<const VkBufferImageCopy> regions);

// Copies every level and layer of `image` (in TRANSFER_SRC_OPTIMAL or GENERAL `layout`) into host
// memory, tightly packed as mipChainRegions packs them. Blocking; for screenshots and tests.
std::vector<uint8_t> readImageLevels(const Device& device, VkCommandPool pool,
                                     const GpuImage& image, VkImageLayout layout);

} // namespace estuary
