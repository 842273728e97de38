// The few Vulkan helpers interop needs (internal, not installed), each through the Context's
// function table: barriers, memory types, views, semaphores, debug names, the fd exports, and the
// one blocking submission rings make at creation. Failures throw estuary::Error (VK_CHECK from
// vk_result.h, shared with the foundation).
#pragma once

#include "dispatch.h"
#include "vk_result.h"

#include <functional>

namespace estuary::interop {

// Stages, accesses and queue families of one barrier (IGNORED families: no ownership transfer).
struct BarrierScope {
    VkPipelineStageFlags2 srcStage = VK_PIPELINE_STAGE_2_NONE;
    VkAccessFlags2 srcAccess = VK_ACCESS_2_NONE;
    VkPipelineStageFlags2 dstStage = VK_PIPELINE_STAGE_2_NONE;
    VkAccessFlags2 dstAccess = VK_ACCESS_2_NONE;
    uint32_t srcQueueFamily = VK_QUEUE_FAMILY_IGNORED;
    uint32_t dstQueueFamily = VK_QUEUE_FAMILY_IGNORED;
};

// Every level and layer of `image`, from oldLayout to newLayout.
void recordImageBarrier(const Context& context, VkCommandBuffer cmd, VkImage image,
                        VkImageLayout oldLayout, VkImageLayout newLayout,
                        const BarrierScope& scope);
// All of `buffer`.
void recordBufferBarrier(const Context& context, VkCommandBuffer cmd, VkBuffer buffer,
                         const BarrierScope& scope);

// The first memory type among `typeBits` with all of `flags`; unsupported() when there is none.
uint32_t findMemoryType(const Context& context, uint32_t typeBits, VkMemoryPropertyFlags flags);
// A view of `shape` over all `mipLevels` levels and all layers of `image`.
VkImageView createImageView(const Context& context, VkImage image, VkFormat format,
                            const ImageShape& shape, uint32_t mipLevels, const char* name);
// Destroys what exists of the image (view, image, memory) and clears the struct.
void destroyImage(const Context& context, GpuImage& image);
void destroyBuffer(const Context& context, GpuBuffer& buffer);

// A timeline semaphore starting at 0; `exportable` adds opaque-fd export.
VkSemaphore createTimelineSemaphore(const Context& context, bool exportable, const char* name);
uint64_t timelineValue(const Context& context, VkSemaphore semaphore);

// Names the object in validation messages and captures; nothing without VulkanDevice::debugUtils.
void setDebugName(const Context& context, VkObjectType type, uint64_t handle, const char* name);
template <typename Handle>
void setDebugName(const Context& context, VkObjectType type, Handle handle, const char* name) {
    setDebugName(context, type, reinterpret_cast<uint64_t>(handle), name);
}

// Records with `record` into a command buffer of `pool` (which must belong to the device's queue
// family), submits it on VulkanDevice::queue and waits for its fence, at most gpuWaitTimeoutNs():
// a runtime error naming `what` past that. Start-up only.
void submitAndWait(const Context& context, VkCommandPool pool,
                   const std::function<void(VkCommandBuffer)>& record, const char* what);

} // namespace estuary::interop
