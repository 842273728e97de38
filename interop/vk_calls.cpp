#include "vk_calls.h"
#include "gpu_wait.h"

#include <string>

namespace estuary::interop {

void recordImageBarrier(const Context& context, VkCommandBuffer cmd, VkImage image,
                        VkImageLayout oldLayout, VkImageLayout newLayout,
                        const BarrierScope& scope) {
    VkImageMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2};
    barrier.srcStageMask = scope.srcStage;
    barrier.srcAccessMask = scope.srcAccess;
    barrier.dstStageMask = scope.dstStage;
    barrier.dstAccessMask = scope.dstAccess;
    barrier.oldLayout = oldLayout;
    barrier.newLayout = newLayout;
    barrier.srcQueueFamilyIndex = scope.srcQueueFamily;
    barrier.dstQueueFamilyIndex = scope.dstQueueFamily;
    barrier.image = image;
    barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, VK_REMAINING_MIP_LEVELS, 0,
                                VK_REMAINING_ARRAY_LAYERS};
    VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.imageMemoryBarrierCount = 1;
    dep.pImageMemoryBarriers = &barrier;
    context.fn->vkCmdPipelineBarrier2(cmd, &dep);
}

void recordBufferBarrier(const Context& context, VkCommandBuffer cmd, VkBuffer buffer,
                         const BarrierScope& scope) {
    VkBufferMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2};
    barrier.srcStageMask = scope.srcStage;
    barrier.srcAccessMask = scope.srcAccess;
    barrier.dstStageMask = scope.dstStage;
    barrier.dstAccessMask = scope.dstAccess;
    barrier.srcQueueFamilyIndex = scope.srcQueueFamily;
    barrier.dstQueueFamilyIndex = scope.dstQueueFamily;
    barrier.buffer = buffer;
    barrier.size = VK_WHOLE_SIZE;
    VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.bufferMemoryBarrierCount = 1;
    dep.pBufferMemoryBarriers = &barrier;
    context.fn->vkCmdPipelineBarrier2(cmd, &dep);
}

uint32_t findMemoryType(const Context& context, uint32_t typeBits, VkMemoryPropertyFlags flags) {
    const VkPhysicalDeviceMemoryProperties& memory = context.memory;
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
        if ((typeBits & (1u << i)) && (memory.memoryTypes[i].propertyFlags & flags) == flags)
            return i;
    throw unsupported(context.deviceName + " has no Vulkan memory type with property flags " +
                      std::to_string(flags) + " among type bits " + std::to_string(typeBits));
}

VkImageView createImageView(const Context& context, VkImage image, VkFormat format,
                            const ImageShape& shape, uint32_t mipLevels, const char* name) {
    VkImageViewCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    info.image = image;
    info.viewType = shape.viewType;
    info.format = format;
    info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, mipLevels, 0, shape.layers};
    VkImageView view = VK_NULL_HANDLE;
    VK_CHECK(context.fn->vkCreateImageView(context.vulkan.device, &info, nullptr, &view));
    setDebugName(context, VK_OBJECT_TYPE_IMAGE_VIEW, view, name);
    return view;
}

void destroyImage(const Context& context, GpuImage& image) {
    const Dispatch& vk = *context.fn;
    const VkDevice device = context.vulkan.device;
    if (image.view) vk.vkDestroyImageView(device, image.view, nullptr);
    if (image.handle) vk.vkDestroyImage(device, image.handle, nullptr);
    if (image.memory) vk.vkFreeMemory(device, image.memory, nullptr);
    image = GpuImage{};
}

void destroyBuffer(const Context& context, GpuBuffer& buffer) {
    const Dispatch& vk = *context.fn;
    if (buffer.handle) vk.vkDestroyBuffer(context.vulkan.device, buffer.handle, nullptr);
    if (buffer.memory) vk.vkFreeMemory(context.vulkan.device, buffer.memory, nullptr);
    buffer = GpuBuffer{};
}

VkSemaphore createTimelineSemaphore(const Context& context, bool exportable, const char* name) {
    VkExportSemaphoreCreateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
    exportInfo.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkSemaphoreTypeCreateInfo typeInfo{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                       exportable ? &exportInfo : nullptr};
    typeInfo.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    typeInfo.initialValue = 0;
    VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &typeInfo};
    VkSemaphore semaphore = VK_NULL_HANDLE;
    VK_CHECK(context.fn->vkCreateSemaphore(context.vulkan.device, &info, nullptr, &semaphore));
    setDebugName(context, VK_OBJECT_TYPE_SEMAPHORE, semaphore, name);
    return semaphore;
}

uint64_t timelineValue(const Context& context, VkSemaphore semaphore) {
    uint64_t value = 0;
    VK_CHECK(context.fn->vkGetSemaphoreCounterValue(context.vulkan.device, semaphore, &value));
    return value;
}

void setDebugName(const Context& context, VkObjectType type, uint64_t handle, const char* name) {
    if (!context.vulkan.debugUtils || !context.fn->vkSetDebugUtilsObjectNameEXT) return;
    VkDebugUtilsObjectNameInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
    info.objectType = type;
    info.objectHandle = handle;
    info.pObjectName = name;
    // A name is a debugging aid: failing to set one is no reason to fail the call that made it.
    (void)context.fn->vkSetDebugUtilsObjectNameEXT(context.vulkan.device, &info);
}

void submitAndWait(const Context& context, VkCommandPool pool,
                   const std::function<void(VkCommandBuffer)>& record, const char* what) {
    const Dispatch& vk = *context.fn;
    const VkDevice device = context.vulkan.device;
    VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence = VK_NULL_HANDLE;
    VK_CHECK(vk.vkCreateFence(device, &fenceInfo, nullptr, &fence));
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    try { // until submitted, a failure gives the fence and command buffer back
        VK_CHECK(vk.vkAllocateCommandBuffers(device, &alloc, &cmd));
        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        VK_CHECK(vk.vkBeginCommandBuffer(cmd, &begin));
        record(cmd);
        VK_CHECK(vk.vkEndCommandBuffer(cmd));
        VkCommandBufferSubmitInfo cmdInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
        cmdInfo.commandBuffer = cmd;
        VkSubmitInfo2 submit{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
        submit.commandBufferInfoCount = 1;
        submit.pCommandBufferInfos = &cmdInfo;
        VK_CHECK(vk.vkQueueSubmit2(context.vulkan.queue, 1, &submit, fence));
    } catch (...) {
        if (cmd) vk.vkFreeCommandBuffers(device, pool, 1, &cmd);
        vk.vkDestroyFence(device, fence, nullptr);
        throw;
    }
    // Once submitted, the fence and command buffer may only go when the work is done: after a
    // timeout or a lost device they are left to the pool's and the device's destruction.
    const uint64_t timeout = gpuWaitTimeoutNs();
    const VkResult waited = vk.vkWaitForFences(device, 1, &fence, VK_TRUE, timeout);
    if (waited == VK_TIMEOUT)
        throw timeoutError("timed out after " + formatSeconds(timeout) + " waiting for " + what +
                           " on the Vulkan queue; set ESTUARY_WAIT_TIMEOUT_S for slower runs");
    VK_CHECK(waited);
    vk.vkFreeCommandBuffers(device, pool, 1, &cmd);
    vk.vkDestroyFence(device, fence, nullptr);
}

} // namespace estuary::interop
