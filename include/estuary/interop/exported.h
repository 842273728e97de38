// Vulkan images and buffers whose memory is exportable as an opaque POSIX fd, so CUDA can import
// it. Images come in every shape CUDA maps (2D, 3D, 2D arrays, cubes, 1D; each with a mip chain).
// Export support is checked per format, usage and image type before anything is allocated; a
// dedicated allocation is used when the driver requires or prefers one, and remembered so the CUDA
// import can say so too.
#pragma once

#include "vulkan_device.h"

namespace estuary::interop {

struct ExportedImageDesc {
    VkFormat format = VK_FORMAT_R32_SFLOAT;
    VkExtent2D extent{};
    ImageShape shape;       // 2D unless set: 3D (shape.depth), 2D array, cube (shape.layers)
    uint32_t mipLevels = 0; // 0: the full chain down to 1×1(×1)
    VkImageUsageFlags usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                              VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    const char* name = "exported image";
};

struct ExportedImage : MoveOnly {
    GpuImage image;
    VkImageUsageFlags usage = 0;
    VkDeviceSize allocationSize = 0;
    bool dedicated = false;
};

struct ExportSupport {
    bool dedicatedOnly = false;
    uint32_t maxMipLevels = 0;
    uint32_t maxArrayLayers = 0;
    VkExtent3D maxExtent{};
};

// Throws unsupported() naming the image type, format and usage when the device cannot export such
// an optimal-tiled image (3D and cube support and limits differ from 2D, so each is asked for).
ExportSupport checkImageExport(const Context& context, VkFormat format, VkImageUsageFlags usage,
                               VkImageViewType viewType = VK_IMAGE_VIEW_TYPE_2D);

// Throws unsupported() naming what the driver refused (type, format, usage, extent, layers,
// levels) before allocating; a shape that is not an image at all (checkImageShape) is a runtime
// error. Nothing is leaked on failure.
ExportedImage createExportedImage(const Context& context, const ExportedImageDesc& desc);
void destroyExportedImage(const Context& context, ExportedImage& image);

struct ExportedBuffer : MoveOnly {
    GpuBuffer buffer;
    VkDeviceSize allocationSize = 0;
    bool dedicated = false;
};

// Throws unsupported() naming the usage when the device cannot export such a buffer as an opaque
// fd; the allocation is dedicated where the driver requires or prefers it.
ExportedBuffer createExportedBuffer(const Context& context, VkDeviceSize size,
                                    VkBufferUsageFlags usage, const char* name);
void destroyExportedBuffer(const Context& context, ExportedBuffer& buffer);

// A new fd for the memory; the caller owns it until a successful import (CUDA's, OpenGL's) takes
// it over. Each importer needs its own fd.
int exportMemoryFd(const Context& context, VkDeviceMemory memory);
// The same for a semaphore made exportable as an opaque fd (createTimelineSemaphore(.., true, ..),
// createExportableBinarySemaphore).
int exportSemaphoreFd(const Context& context, VkSemaphore semaphore);
// A binary semaphore exportable as an opaque fd.
VkSemaphore createExportableBinarySemaphore(const Context& context, const char* name);

// Queue-family ownership transfer around CUDA's access: Vulkan releases the image (in GENERAL
// layout) or buffer to VK_QUEUE_FAMILY_EXTERNAL before CUDA touches it and acquires it back before
// using it. The acquire's source stage is `waitStage`, the stage at which the submission holding it
// waits for CUDA's semaphore, so the barrier (and its layout transition) is chained to that wait.
void recordReleaseToExternal(VkCommandBuffer cmd, const Context& context,
                             const ExportedImage& image, VkImageLayout oldLayout,
                             VkPipelineStageFlags2 srcStage, VkAccessFlags2 srcAccess);
void recordAcquireFromExternal(
    VkCommandBuffer cmd, const Context& context, const ExportedImage& image,
    VkImageLayout newLayout, VkPipelineStageFlags2 dstStage, VkAccessFlags2 dstAccess,
    VkPipelineStageFlags2 waitStage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT);
void recordReleaseToExternal(VkCommandBuffer cmd, const Context& context,
                             const ExportedBuffer& buffer, VkPipelineStageFlags2 srcStage,
                             VkAccessFlags2 srcAccess);
void recordAcquireFromExternal(
    VkCommandBuffer cmd, const Context& context, const ExportedBuffer& buffer,
    VkPipelineStageFlags2 dstStage, VkAccessFlags2 dstAccess,
    VkPipelineStageFlags2 waitStage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT);

} // namespace estuary::interop
