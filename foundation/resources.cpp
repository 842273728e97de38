#include "resources.h"
#include "vk_check.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace estuary {

uint32_t findMemoryType(const Device& device, uint32_t typeBits, VkMemoryPropertyFlags flags) {
    for (uint32_t i = 0; i < device.memory.memoryTypeCount; ++i)
        if ((typeBits & (1u << i)) && (device.memory.memoryTypes[i].propertyFlags & flags) == flags)
            return i;
    throw unsupported("no Vulkan memory type with property flags " + std::to_string(flags) +
                      " among type bits " + std::to_string(typeBits));
}

VkExtent2D mipExtent(VkExtent2D base, uint32_t level) {
    return {std::max(1u, base.width >> level), std::max(1u, base.height >> level)};
}

uint32_t mipDepth(uint32_t depth, uint32_t level) {
    return std::max(1u, depth >> level);
}

VkDeviceSize levelTexels(VkExtent2D extent, const ImageShape& shape, uint32_t level) {
    const VkExtent2D e = mipExtent(extent, level);
    return VkDeviceSize(e.width) * e.height * mipDepth(shape.depth, level) * shape.layers;
}

uint32_t formatTexelSize(VkFormat format) {
    switch (format) {
    case VK_FORMAT_R8_UINT:
    case VK_FORMAT_R8_SINT:
    case VK_FORMAT_R8_UNORM:
        return 1;
    case VK_FORMAT_R8G8_UINT:
    case VK_FORMAT_R8G8_SINT:
    case VK_FORMAT_R16_UINT:
    case VK_FORMAT_R16_SINT:
    case VK_FORMAT_R16_SFLOAT:
        return 2;
    case VK_FORMAT_R8G8B8A8_UINT:
    case VK_FORMAT_R8G8B8A8_SINT:
    case VK_FORMAT_R8G8B8A8_UNORM:
    case VK_FORMAT_R8G8B8A8_SRGB:
    case VK_FORMAT_B8G8R8A8_UNORM:
    case VK_FORMAT_B8G8R8A8_SRGB:
    case VK_FORMAT_R16G16_UINT:
    case VK_FORMAT_R16G16_SINT:
    case VK_FORMAT_R32_UINT:
    case VK_FORMAT_R32_SINT:
    case VK_FORMAT_R32_SFLOAT:
        return 4;
    case VK_FORMAT_R16G16B16A16_UINT:
    case VK_FORMAT_R16G16B16A16_SINT:
    case VK_FORMAT_R16G16B16A16_SFLOAT:
    case VK_FORMAT_R32G32_UINT:
    case VK_FORMAT_R32G32_SINT:
    case VK_FORMAT_R32G32_SFLOAT:
        return 8;
    case VK_FORMAT_R32G32B32A32_UINT:
    case VK_FORMAT_R32G32B32A32_SINT:
    case VK_FORMAT_R32G32B32A32_SFLOAT:
        return 16;
    default:
        return 0;
    }
}

std::vector<VkBufferImageCopy> mipChainRegions(VkExtent2D extent, uint32_t levels,
                                               VkDeviceSize texelBytes, VkDeviceSize alignment,
                                               VkDeviceSize& totalBytes, const ImageShape& shape) {
    std::vector<VkBufferImageCopy> regions;
    totalBytes = 0;
    for (uint32_t level = 0; level < levels; ++level) {
        const VkExtent2D e = mipExtent(extent, level);
        totalBytes = (totalBytes + alignment - 1) & ~(alignment - 1);
        VkBufferImageCopy region{};
        region.bufferOffset = totalBytes;
        // bufferRowLength/ImageHeight 0: rows, slices and layers tightly packed.
        region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, 0, shape.layers};
        region.imageExtent = {e.width, e.height, mipDepth(shape.depth, level)};
        regions.push_back(region);
        totalBytes += texelBytes * levelTexels(extent, shape, level);
    }
    return regions;
}

GpuBuffer createBuffer(const Device& device, VkDeviceSize size, VkBufferUsageFlags usage,
                       VkMemoryPropertyFlags memoryFlags, const char* name) {
    GpuBuffer buffer;
    buffer.size = size;
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    info.usage = usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VK_CHECK(vkCreateBuffer(device.handle, &info, nullptr, &buffer.handle));
    setDebugName(device, VK_OBJECT_TYPE_BUFFER, reinterpret_cast<uint64_t>(buffer.handle), name);

    try { // a failed allocation, bind or map must not leak the buffer
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(device.handle, buffer.handle, &req);
        VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        alloc.allocationSize = req.size;
        alloc.memoryTypeIndex = findMemoryType(device, req.memoryTypeBits, memoryFlags);
        VK_CHECK(vkAllocateMemory(device.handle, &alloc, nullptr, &buffer.memory));
        VK_CHECK(vkBindBufferMemory(device.handle, buffer.handle, buffer.memory, 0));
        if (memoryFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
            VK_CHECK(
                vkMapMemory(device.handle, buffer.memory, 0, VK_WHOLE_SIZE, 0, &buffer.mapped));
    } catch (...) {
        destroyBuffer(device, buffer);
        throw;
    }
    return buffer;
}

void destroyBuffer(const Device& device, GpuBuffer& buffer) {
    if (buffer.handle) vkDestroyBuffer(device.handle, buffer.handle, nullptr);
    if (buffer.memory) vkFreeMemory(device.handle, buffer.memory, nullptr);
    buffer = GpuBuffer{};
}

VkImageAspectFlags aspectOf(VkFormat format) {
    switch (format) {
    case VK_FORMAT_D16_UNORM:
    case VK_FORMAT_X8_D24_UNORM_PACK32:
    case VK_FORMAT_D32_SFLOAT:
        return VK_IMAGE_ASPECT_DEPTH_BIT;
    default:
        return VK_IMAGE_ASPECT_COLOR_BIT;
    }
}

VkImageView createImageView(const Device& device, VkImage image, VkFormat format,
                            const ImageShape& shape, uint32_t mipLevels, const char* name) {
    VkImageViewCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    info.image = image;
    info.viewType = shape.viewType;
    info.format = format;
    info.subresourceRange = {aspectOf(format), 0, mipLevels, 0, shape.layers};
    VkImageView view = VK_NULL_HANDLE;
    VK_CHECK(vkCreateImageView(device.handle, &info, nullptr, &view));
    setDebugName(device, VK_OBJECT_TYPE_IMAGE_VIEW, reinterpret_cast<uint64_t>(view), name);
    return view;
}

GpuImage createImage(const Device& device, VkExtent2D extent, const ImageShape& shape,
                     VkFormat format, uint32_t mipLevels, VkImageUsageFlags usage,
                     const char* name) {
    if (const std::string problem = checkImageShape(extent, shape); !problem.empty())
        throw runtimeError(std::string(name) + ": " + problem);
    GpuImage image;
    image.format = format;
    image.extent = extent;
    image.mipLevels = mipLevels;
    image.shape = shape;
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.flags = imageCreateFlagsFor(shape.viewType);
    info.imageType = imageTypeFor(shape.viewType);
    info.format = format;
    info.extent = {extent.width, extent.height, shape.depth};
    info.mipLevels = mipLevels;
    info.arrayLayers = shape.layers;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VK_CHECK(vkCreateImage(device.handle, &info, nullptr, &image.handle));
    setDebugName(device, VK_OBJECT_TYPE_IMAGE, reinterpret_cast<uint64_t>(image.handle), name);

    try { // a failed allocation, bind or view must not leak the image
        VkMemoryRequirements req;
        vkGetImageMemoryRequirements(device.handle, image.handle, &req);
        VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        alloc.allocationSize = req.size;
        alloc.memoryTypeIndex =
            findMemoryType(device, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        VK_CHECK(vkAllocateMemory(device.handle, &alloc, nullptr, &image.memory));
        VK_CHECK(vkBindImageMemory(device.handle, image.handle, image.memory, 0));
        image.view = createImageView(device, image.handle, format, shape, mipLevels, name);
    } catch (...) {
        destroyImage(device, image);
        throw;
    }
    return image;
}

void destroyImage(const Device& device, GpuImage& image) {
    if (image.view) vkDestroyImageView(device.handle, image.view, nullptr);
    if (image.handle) vkDestroyImage(device.handle, image.handle, nullptr);
    if (image.memory) vkFreeMemory(device.handle, image.memory, nullptr);
    image = GpuImage{};
}

void recordMemoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags2 srcStage,
                         VkAccessFlags2 srcAccess, VkPipelineStageFlags2 dstStage,
                         VkAccessFlags2 dstAccess) {
    VkMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
    barrier.srcStageMask = srcStage;
    barrier.srcAccessMask = srcAccess;
    barrier.dstStageMask = dstStage;
    barrier.dstAccessMask = dstAccess;
    VkDependencyInfo dependency{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dependency.memoryBarrierCount = 1;
    dependency.pMemoryBarriers = &barrier;
    vkCmdPipelineBarrier2(cmd, &dependency);
}

void recordImageBarrier(VkCommandBuffer cmd, VkImage image, const ImageTransition& t) {
    VkImageMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2};
    barrier.srcStageMask = t.srcStage;
    barrier.srcAccessMask = t.srcAccess;
    barrier.dstStageMask = t.dstStage;
    barrier.dstAccessMask = t.dstAccess;
    barrier.oldLayout = t.oldLayout;
    barrier.newLayout = t.newLayout;
    barrier.srcQueueFamilyIndex = t.srcQueueFamily;
    barrier.dstQueueFamilyIndex = t.dstQueueFamily;
    barrier.image = image;
    barrier.subresourceRange = {t.aspect, t.baseMip, t.mipCount, 0, VK_REMAINING_ARRAY_LAYERS};
    VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.imageMemoryBarrierCount = 1;
    dep.pImageMemoryBarriers = &barrier;
    vkCmdPipelineBarrier2(cmd, &dep);
}

VkSemaphore createTimelineSemaphore(const Device& device, bool exportable, const char* name) {
    VkExportSemaphoreCreateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
    exportInfo.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkSemaphoreTypeCreateInfo typeInfo{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                       exportable ? &exportInfo : nullptr};
    typeInfo.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    typeInfo.initialValue = 0;
    VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &typeInfo};
    VkSemaphore semaphore = VK_NULL_HANDLE;
    VK_CHECK(vkCreateSemaphore(device.handle, &info, nullptr, &semaphore));
    setDebugName(device, VK_OBJECT_TYPE_SEMAPHORE, reinterpret_cast<uint64_t>(semaphore), name);
    return semaphore;
}

bool waitTimelineFor(const Device& device, VkSemaphore semaphore, uint64_t value,
                     uint64_t timeoutNs) {
    VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    info.semaphoreCount = 1;
    info.pSemaphores = &semaphore;
    info.pValues = &value;
    const VkResult r = vkWaitSemaphores(device.handle, &info, timeoutNs);
    if (r == VK_TIMEOUT) return false;
    VK_CHECK(r);
    return true;
}

void waitTimeline(const Device& device, VkSemaphore semaphore, uint64_t value, const char* what,
                  uint64_t timeoutNs) {
    if (waitTimelineFor(device, semaphore, value, timeoutNs)) return;
    throw timeoutError("timed out after " + formatSeconds(timeoutNs) + " waiting for " + what +
                       " to reach " + std::to_string(value) + " (it is at " +
                       std::to_string(timelineValue(device, semaphore)) +
                       "); set ESTUARY_WAIT_TIMEOUT_S for slower runs");
}

uint64_t timelineValue(const Device& device, VkSemaphore semaphore) {
    uint64_t value = 0;
    VK_CHECK(vkGetSemaphoreCounterValue(device.handle, semaphore, &value));
    return value;
}

VkCommandPool createCommandPool(const Device& device, VkCommandPoolCreateFlags flags,
                                const char* name) {
    VkCommandPoolCreateInfo info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    info.flags = flags;
    info.queueFamilyIndex = device.queueFamily;
    VkCommandPool pool = VK_NULL_HANDLE;
    VK_CHECK(vkCreateCommandPool(device.handle, &info, nullptr, &pool));
    setDebugName(device, VK_OBJECT_TYPE_COMMAND_POOL, reinterpret_cast<uint64_t>(pool), name);
    return pool;
}

void submitCommands(const Device& device, VkCommandBuffer cmd,
                    std::span<const VkSemaphoreSubmitInfo> waits,
                    std::span<const VkSemaphoreSubmitInfo> signals) {
    VkCommandBufferSubmitInfo cmdInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
    cmdInfo.commandBuffer = cmd;
    VkSubmitInfo2 submit{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
    submit.waitSemaphoreInfoCount = uint32_t(waits.size());
    submit.pWaitSemaphoreInfos = waits.data();
    submit.commandBufferInfoCount = 1;
    submit.pCommandBufferInfos = &cmdInfo;
    submit.signalSemaphoreInfoCount = uint32_t(signals.size());
    submit.pSignalSemaphoreInfos = signals.data();
    VK_CHECK(vkQueueSubmit2(device.queue, 1, &submit, VK_NULL_HANDLE));
}

void submitAndWait(const Device& device, VkCommandPool pool,
                   const std::function<void(VkCommandBuffer)>& record,
                   const VkSemaphoreSubmitInfo* gpuWait) {
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VK_CHECK(vkAllocateCommandBuffers(device.handle, &alloc, &cmd));
    try { // recording or submitting may fail: the command buffer goes back to the pool
        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
        record(cmd);
        VK_CHECK(vkEndCommandBuffer(cmd));
        submitCommands(device, cmd,
                       gpuWait ? std::span(gpuWait, 1) : std::span<const VkSemaphoreSubmitInfo>());
    } catch (...) {
        vkFreeCommandBuffers(device.handle, pool, 1, &cmd);
        throw;
    }
    // Once submitted it may only be freed when done; if waiting fails (device lost), the pool's
    // destruction frees it.
    VK_CHECK(vkQueueWaitIdle(device.queue));
    vkFreeCommandBuffers(device.handle, pool, 1, &cmd);
}

void recordUploadForSampling(VkCommandBuffer cmd, VkBuffer source, VkImage image,
                             std::span<const VkBufferImageCopy> regions, VkImageLayout oldLayout) {
    // Sampled by fragment shaders, by the compute draw (their compute twins) or by vertex shaders
    // (glyphs): the copy waits for the previous reads in all, and all wait for the copy.
    constexpr VkPipelineStageFlags2 kSamplingStages = VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                                                      VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT |
                                                      VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    ImageTransition toCopy;
    toCopy.oldLayout = oldLayout;
    toCopy.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    toCopy.srcStage = kSamplingStages;
    toCopy.dstStage = VK_PIPELINE_STAGE_2_COPY_BIT;
    toCopy.dstAccess = VK_ACCESS_2_TRANSFER_WRITE_BIT;
    recordImageBarrier(cmd, image, toCopy);
    vkCmdCopyBufferToImage(cmd, source, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                           static_cast<uint32_t>(regions.size()), regions.data());
    ImageTransition toSample;
    toSample.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    toSample.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    toSample.srcStage = VK_PIPELINE_STAGE_2_COPY_BIT;
    toSample.srcAccess = VK_ACCESS_2_TRANSFER_WRITE_BIT;
    toSample.dstStage = kSamplingStages;
    toSample.dstAccess = VK_ACCESS_2_SHADER_SAMPLED_READ_BIT;
    recordImageBarrier(cmd, image, toSample);
}

void uploadForSampling(const Device& device, VkCommandPool pool, VkImage image,
                       std::span<const uint8_t> bytes, std::span<const VkBufferImageCopy> regions) {
    GpuBuffer staging =
        createBuffer(device, bytes.size(), VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                     "upload staging");
    std::memcpy(staging.mapped, bytes.data(), bytes.size());
    try {
        submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
            recordUploadForSampling(cmd, staging.handle, image, regions);
        });
    } catch (...) {
        destroyBuffer(device, staging);
        throw;
    }
    destroyBuffer(device, staging);
}

std::vector<uint8_t> readImageLevels(const Device& device, VkCommandPool pool,
                                     const GpuImage& image, VkImageLayout layout) {
    const VkDeviceSize texel = formatTexelSize(image.format);
    if (texel == 0)
        throw runtimeError("readImageLevels: unsupported format " + std::to_string(image.format));
    VkDeviceSize total = 0;
    // 16-byte aligned levels: a valid buffer offset for every texel size.
    const std::vector<VkBufferImageCopy> regions =
        mipChainRegions(image.extent, image.mipLevels, texel, 16, total, image.shape);
    GpuBuffer staging =
        createBuffer(device, total, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                     "readback staging");
    try {
        submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
            // Make every earlier write to the image on this queue visible to the copy.
            ImageTransition t;
            t.oldLayout = layout;
            t.newLayout = layout;
            t.srcStage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
            t.srcAccess = VK_ACCESS_2_MEMORY_WRITE_BIT;
            t.dstStage = VK_PIPELINE_STAGE_2_COPY_BIT;
            t.dstAccess = VK_ACCESS_2_TRANSFER_READ_BIT;
            recordImageBarrier(cmd, image.handle, t);
            vkCmdCopyImageToBuffer(cmd, image.handle, layout, staging.handle,
                                   static_cast<uint32_t>(regions.size()), regions.data());
        });
    } catch (...) {
        destroyBuffer(device, staging);
        throw;
    }
    std::vector<uint8_t> packed;
    for (uint32_t level = 0; level < image.mipLevels; ++level) {
        const auto* src = static_cast<const uint8_t*>(staging.mapped) + regions[level].bufferOffset;
        packed.insert(packed.end(), src,
                      src + texel * levelTexels(image.extent, image.shape, level));
    }
    destroyBuffer(device, staging);
    return packed;
}

} // namespace estuary
