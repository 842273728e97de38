#include "exported.h"
#include "vk_check.h"
#include "format_tables.h"

#include <string>

namespace estuary::interop {
namespace {

constexpr VkExternalMemoryHandleTypeFlagBits kHandleType =
    VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;

std::string usageString(VkImageUsageFlags usage) {
    struct Bit {
        VkImageUsageFlags bit;
        const char* name;
    };
    static const Bit bits[] = {{VK_IMAGE_USAGE_TRANSFER_SRC_BIT, "TRANSFER_SRC"},
                               {VK_IMAGE_USAGE_TRANSFER_DST_BIT, "TRANSFER_DST"},
                               {VK_IMAGE_USAGE_SAMPLED_BIT, "SAMPLED"},
                               {VK_IMAGE_USAGE_STORAGE_BIT, "STORAGE"},
                               {VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, "COLOR_ATTACHMENT"}};
    std::string s;
    for (const auto& b : bits)
        if (usage & b.bit) s += (s.empty() ? "" : "|") + std::string(b.name);
    return s.empty() ? "0" : s;
}

VkDeviceMemory allocateExportable(const Device& device, const VkMemoryRequirements& req,
                                  bool dedicated, VkImage image, VkBuffer buffer) {
    VkMemoryDedicatedAllocateInfo dedicatedInfo{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
    dedicatedInfo.image = image;
    dedicatedInfo.buffer = buffer;
    VkExportMemoryAllocateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
    exportInfo.handleTypes = kHandleType;
    exportInfo.pNext = dedicated ? &dedicatedInfo : nullptr;
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &exportInfo};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex =
        findMemoryType(device, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VK_CHECK(vkAllocateMemory(device.handle, &alloc, nullptr, &memory));
    return memory;
}

} // namespace

ExportSupport checkImageExport(const Device& device, VkFormat format, VkImageUsageFlags usage,
                               VkImageViewType viewType) {
    VkPhysicalDeviceExternalImageFormatInfo external{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO};
    external.handleType = kHandleType;
    VkPhysicalDeviceImageFormatInfo2 info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2,
                                          &external};
    info.format = format;
    info.type = imageTypeFor(viewType);
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = usage;
    info.flags = imageCreateFlagsFor(viewType);
    VkExternalImageFormatProperties externalProps{
        VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES};
    VkImageFormatProperties2 props{VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2, &externalProps};
    const VkResult r = vkGetPhysicalDeviceImageFormatProperties2(device.physical, &info, &props);
    const std::string what = std::string(device.properties.deviceName) + " cannot export a " +
                             viewTypeName(viewType) + " " + formatName(format) +
                             " optimal-tiled image with usage " + usageString(usage) +
                             " as an opaque fd";
    if (r == VK_ERROR_FORMAT_NOT_SUPPORTED)
        throw unsupported(what + " (format/usage not supported with external memory)");
    VK_CHECK(r);
    const auto features = externalProps.externalMemoryProperties.externalMemoryFeatures;
    if (!(features & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT))
        throw unsupported(what + " (not exportable)");
    ExportSupport support;
    support.dedicatedOnly = features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT;
    support.maxMipLevels = props.imageFormatProperties.maxMipLevels;
    support.maxArrayLayers = props.imageFormatProperties.maxArrayLayers;
    support.maxExtent = props.imageFormatProperties.maxExtent;
    return support;
}

ExportedImage createExportedImage(const Device& device, const ExportedImageDesc& desc) {
    if (!channelFormatFor(desc.format))
        throw unsupported(std::string("format ") + std::to_string(desc.format) +
                          " has no CUDA channel format; shareable formats are the 21 of the CUDA "
                          "guide plus R16G16B16A16_SFLOAT and R8G8B8A8_UNORM");
    if (const std::string problem = checkImageShape(desc.extent, desc.shape); !problem.empty())
        throw runtimeError(std::string(desc.name) + ": " + problem);
    const ImageShape& shape = desc.shape;
    const ExportSupport support = checkImageExport(device, desc.format, desc.usage, shape.viewType);
    const uint32_t fullChain = fullMipCount(desc.extent.width, desc.extent.height, shape.depth);
    const uint32_t levels = desc.mipLevels == 0 ? fullChain : desc.mipLevels;
    const VkExtent3D max = support.maxExtent;
    const std::string kind =
        std::string(viewTypeName(shape.viewType)) + " " + formatName(desc.format) + " image";
    if (desc.extent.width > max.width || desc.extent.height > max.height || shape.depth > max.depth)
        throw unsupported("the driver exports a " + kind + " of at most " +
                          std::to_string(max.width) + "x" + std::to_string(max.height) + "x" +
                          std::to_string(max.depth) + "; asked for " +
                          std::to_string(desc.extent.width) + "x" +
                          std::to_string(desc.extent.height) + "x" + std::to_string(shape.depth));
    if (shape.layers > support.maxArrayLayers)
        throw unsupported("the driver exports a " + kind + " with at most " +
                          std::to_string(support.maxArrayLayers) + " layers; asked for " +
                          std::to_string(shape.layers));
    if (levels > fullChain || levels > support.maxMipLevels)
        throw unsupported("exported " + kind + " asks for " + std::to_string(levels) +
                          " mip levels; allowed 1.." +
                          std::to_string(std::min(fullChain, support.maxMipLevels)));

    ExportedImage out;
    out.usage = desc.usage;
    out.image.format = desc.format;
    out.image.extent = desc.extent;
    out.image.mipLevels = levels;
    out.image.shape = shape;

    VkExternalMemoryImageCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO};
    external.handleTypes = kHandleType;
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, &external};
    info.flags = imageCreateFlagsFor(shape.viewType);
    info.imageType = imageTypeFor(shape.viewType);
    info.format = desc.format;
    info.extent = {desc.extent.width, desc.extent.height, shape.depth};
    info.mipLevels = levels;
    info.arrayLayers = shape.layers;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = desc.usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VK_CHECK(vkCreateImage(device.handle, &info, nullptr, &out.image.handle));
    setDebugName(device, VK_OBJECT_TYPE_IMAGE, reinterpret_cast<uint64_t>(out.image.handle),
                 desc.name);

    try { // a failed allocation or bind must not leak the image
        VkMemoryDedicatedRequirements dedicatedReq{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
        VkMemoryRequirements2 req{VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, &dedicatedReq};
        VkImageMemoryRequirementsInfo2 reqInfo{VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2};
        reqInfo.image = out.image.handle;
        vkGetImageMemoryRequirements2(device.handle, &reqInfo, &req);
        out.dedicated = support.dedicatedOnly || dedicatedReq.requiresDedicatedAllocation ||
                        dedicatedReq.prefersDedicatedAllocation;
        out.allocationSize = req.memoryRequirements.size;
        out.image.memory = allocateExportable(device, req.memoryRequirements, out.dedicated,
                                              out.image.handle, nullptr);
        setDebugName(device, VK_OBJECT_TYPE_DEVICE_MEMORY,
                     reinterpret_cast<uint64_t>(out.image.memory), desc.name);
        VK_CHECK(vkBindImageMemory(device.handle, out.image.handle, out.image.memory, 0));
        out.image.view =
            createImageView(device, out.image.handle, desc.format, shape, levels, desc.name);
    } catch (...) {
        destroyImage(device, out.image);
        throw;
    }
    return out;
}

void destroyExportedImage(const Device& device, ExportedImage& image) {
    destroyImage(device, image.image);
    image = ExportedImage{};
}

ExportedBuffer createExportedBuffer(const Device& device, VkDeviceSize size,
                                    VkBufferUsageFlags usage, const char* name) {
    ExportedBuffer out;
    out.buffer.size = size;
    VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    external.handleTypes = kHandleType;
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, &external};
    info.size = size;
    info.usage = usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VK_CHECK(vkCreateBuffer(device.handle, &info, nullptr, &out.buffer.handle));
    setDebugName(device, VK_OBJECT_TYPE_BUFFER, reinterpret_cast<uint64_t>(out.buffer.handle),
                 name);

    try { // a failed allocation or bind must not leak the buffer
        VkMemoryDedicatedRequirements dedicatedReq{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
        VkMemoryRequirements2 req{VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, &dedicatedReq};
        VkBufferMemoryRequirementsInfo2 reqInfo{
            VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2};
        reqInfo.buffer = out.buffer.handle;
        vkGetBufferMemoryRequirements2(device.handle, &reqInfo, &req);
        out.dedicated =
            dedicatedReq.requiresDedicatedAllocation || dedicatedReq.prefersDedicatedAllocation;
        out.allocationSize = req.memoryRequirements.size;
        out.buffer.memory = allocateExportable(device, req.memoryRequirements, out.dedicated,
                                               nullptr, out.buffer.handle);
        setDebugName(device, VK_OBJECT_TYPE_DEVICE_MEMORY,
                     reinterpret_cast<uint64_t>(out.buffer.memory), name);
        VK_CHECK(vkBindBufferMemory(device.handle, out.buffer.handle, out.buffer.memory, 0));
    } catch (...) {
        destroyBuffer(device, out.buffer);
        throw;
    }
    return out;
}

void destroyExportedBuffer(const Device& device, ExportedBuffer& buffer) {
    destroyBuffer(device, buffer.buffer);
    buffer = ExportedBuffer{};
}

int exportMemoryFd(const Device& device, VkDeviceMemory memory) {
    VkMemoryGetFdInfoKHR info{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
    info.memory = memory;
    info.handleType = kHandleType;
    int fd = -1;
    VK_CHECK(vkGetMemoryFdKHR(device.handle, &info, &fd));
    return fd;
}

int exportSemaphoreFd(const Device& device, VkSemaphore semaphore) {
    VkSemaphoreGetFdInfoKHR info{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
    info.semaphore = semaphore;
    info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    int fd = -1;
    VK_CHECK(vkGetSemaphoreFdKHR(device.handle, &info, &fd));
    return fd;
}

VkSemaphore createExportableBinarySemaphore(const Device& device, const char* name) {
    VkExportSemaphoreCreateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
    exportInfo.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &exportInfo};
    VkSemaphore semaphore = VK_NULL_HANDLE;
    VK_CHECK(vkCreateSemaphore(device.handle, &info, nullptr, &semaphore));
    setDebugName(device, VK_OBJECT_TYPE_SEMAPHORE, reinterpret_cast<uint64_t>(semaphore), name);
    return semaphore;
}

void recordReleaseToExternal(VkCommandBuffer cmd, const Device& device, const ExportedImage& image,
                             VkImageLayout oldLayout, VkPipelineStageFlags2 srcStage,
                             VkAccessFlags2 srcAccess) {
    ImageTransition t;
    t.oldLayout = oldLayout;
    t.newLayout = VK_IMAGE_LAYOUT_GENERAL;
    t.srcStage = srcStage;
    t.srcAccess = srcAccess;
    // The destination half of a release is ignored; the external user synchronizes through the
    // semaphore signalled after this submission.
    t.srcQueueFamily = device.queueFamily;
    t.dstQueueFamily = VK_QUEUE_FAMILY_EXTERNAL;
    recordImageBarrier(cmd, image.image.handle, t);
}

void recordAcquireFromExternal(VkCommandBuffer cmd, const Device& device,
                               const ExportedImage& image, VkImageLayout newLayout,
                               VkPipelineStageFlags2 dstStage, VkAccessFlags2 dstAccess,
                               VkPipelineStageFlags2 waitStage) {
    ImageTransition t;
    t.oldLayout = VK_IMAGE_LAYOUT_GENERAL;
    t.newLayout = newLayout;
    // The source access of an acquire is ignored; its source stage chains to the semaphore wait.
    t.srcStage = waitStage;
    t.dstStage = dstStage;
    t.dstAccess = dstAccess;
    t.srcQueueFamily = VK_QUEUE_FAMILY_EXTERNAL;
    t.dstQueueFamily = device.queueFamily;
    recordImageBarrier(cmd, image.image.handle, t);
}

namespace {

void recordBufferOwnership(VkCommandBuffer cmd, VkBuffer buffer, uint32_t srcFamily,
                           uint32_t dstFamily, VkPipelineStageFlags2 srcStage,
                           VkAccessFlags2 srcAccess, VkPipelineStageFlags2 dstStage,
                           VkAccessFlags2 dstAccess) {
    VkBufferMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2};
    barrier.srcStageMask = srcStage;
    barrier.srcAccessMask = srcAccess;
    barrier.dstStageMask = dstStage;
    barrier.dstAccessMask = dstAccess;
    barrier.srcQueueFamilyIndex = srcFamily;
    barrier.dstQueueFamilyIndex = dstFamily;
    barrier.buffer = buffer;
    barrier.size = VK_WHOLE_SIZE;
    VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.bufferMemoryBarrierCount = 1;
    dep.pBufferMemoryBarriers = &barrier;
    vkCmdPipelineBarrier2(cmd, &dep);
}

} // namespace

void recordReleaseToExternal(VkCommandBuffer cmd, const Device& device,
                             const ExportedBuffer& buffer, VkPipelineStageFlags2 srcStage,
                             VkAccessFlags2 srcAccess) {
    // As for images: the destination half of a release is ignored.
    recordBufferOwnership(cmd, buffer.buffer.handle, device.queueFamily, VK_QUEUE_FAMILY_EXTERNAL,
                          srcStage, srcAccess, VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE);
}

void recordAcquireFromExternal(VkCommandBuffer cmd, const Device& device,
                               const ExportedBuffer& buffer, VkPipelineStageFlags2 dstStage,
                               VkAccessFlags2 dstAccess, VkPipelineStageFlags2 waitStage) {
    recordBufferOwnership(cmd, buffer.buffer.handle, VK_QUEUE_FAMILY_EXTERNAL, device.queueFamily,
                          waitStage, VK_ACCESS_2_NONE, dstStage, dstAccess);
}

} // namespace estuary::interop
