#include "estuary/interop/exported.h"
#include "estuary/interop/format_tables.h"
#include "vk_calls.h"

#include <initializer_list>
#include <string>

namespace estuary::interop {
namespace {

constexpr VkExternalMemoryHandleTypeFlagBits kHandleType =
    VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;

struct UsageBit {
    VkFlags bit;
    const char* name;
};

std::string usageString(VkFlags usage, std::initializer_list<UsageBit> bits) {
    std::string s;
    for (const UsageBit& b : bits)
        if (usage & b.bit) s += (s.empty() ? "" : "|") + std::string(b.name);
    return s.empty() ? "0" : s;
}

std::string imageUsageString(VkImageUsageFlags usage) {
    return usageString(usage, {{VK_IMAGE_USAGE_TRANSFER_SRC_BIT, "TRANSFER_SRC"},
                               {VK_IMAGE_USAGE_TRANSFER_DST_BIT, "TRANSFER_DST"},
                               {VK_IMAGE_USAGE_SAMPLED_BIT, "SAMPLED"},
                               {VK_IMAGE_USAGE_STORAGE_BIT, "STORAGE"},
                               {VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, "COLOR_ATTACHMENT"}});
}

std::string bufferUsageString(VkBufferUsageFlags usage) {
    return usageString(usage,
                       {{VK_BUFFER_USAGE_TRANSFER_SRC_BIT, "TRANSFER_SRC"},
                        {VK_BUFFER_USAGE_TRANSFER_DST_BIT, "TRANSFER_DST"},
                        {VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT, "UNIFORM_TEXEL_BUFFER"},
                        {VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT, "STORAGE_TEXEL_BUFFER"},
                        {VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, "UNIFORM_BUFFER"},
                        {VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "STORAGE_BUFFER"},
                        {VK_BUFFER_USAGE_INDEX_BUFFER_BIT, "INDEX_BUFFER"},
                        {VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, "VERTEX_BUFFER"},
                        {VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, "INDIRECT_BUFFER"},
                        {VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, "SHADER_DEVICE_ADDRESS"}});
}

// Whether the device can export a buffer of `usage` as an opaque fd, and only as a dedicated
// allocation (throws unsupported() naming the usage when it cannot export it at all).
bool checkBufferExport(const Context& context, VkBufferUsageFlags usage) {
    VkPhysicalDeviceExternalBufferInfo info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
    info.usage = usage;
    info.handleType = kHandleType;
    VkExternalBufferProperties props{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
    context.fn->vkGetPhysicalDeviceExternalBufferProperties(context.vulkan.physicalDevice, &info,
                                                            &props);
    const auto features = props.externalMemoryProperties.externalMemoryFeatures;
    if (!(features & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT))
        throw unsupported(context.deviceName + " cannot export a buffer with usage " +
                          bufferUsageString(usage) + " as an opaque fd");
    return features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT;
}

VkDeviceMemory allocateExportable(const Context& context, const VkMemoryRequirements& req,
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
        findMemoryType(context, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VK_CHECK(context.fn->vkAllocateMemory(context.vulkan.device, &alloc, nullptr, &memory));
    return memory;
}

} // namespace

ExportSupport checkImageExport(const Context& context, VkFormat format, VkImageUsageFlags usage,
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
    const VkResult r = context.fn->vkGetPhysicalDeviceImageFormatProperties2(
        context.vulkan.physicalDevice, &info, &props);
    const std::string what = context.deviceName + " cannot export a " + viewTypeName(viewType) +
                             " " + formatName(format) + " optimal-tiled image with usage " +
                             imageUsageString(usage) + " as an opaque fd";
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

ExportedImage createExportedImage(const Context& context, const ExportedImageDesc& desc) {
    if (!channelFormatFor(desc.format))
        throw unsupported(std::string("format ") + std::to_string(desc.format) +
                          " has no CUDA channel format; shareable formats are the 21 of the CUDA "
                          "guide plus R16G16B16A16_SFLOAT and R8G8B8A8_UNORM");
    if (const std::string problem = checkImageShape(desc.extent, desc.shape); !problem.empty())
        throw runtimeError(std::string(desc.name) + ": " + problem);
    const ImageShape& shape = desc.shape;
    const ExportSupport support =
        checkImageExport(context, desc.format, desc.usage, shape.viewType);
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
    VK_CHECK(context.fn->vkCreateImage(context.vulkan.device, &info, nullptr, &out.image.handle));
    setDebugName(context, VK_OBJECT_TYPE_IMAGE, out.image.handle, desc.name);

    try { // a failed allocation or bind must not leak the image
        VkMemoryDedicatedRequirements dedicatedReq{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
        VkMemoryRequirements2 req{VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, &dedicatedReq};
        VkImageMemoryRequirementsInfo2 reqInfo{VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2};
        reqInfo.image = out.image.handle;
        context.fn->vkGetImageMemoryRequirements2(context.vulkan.device, &reqInfo, &req);
        out.dedicated = support.dedicatedOnly || dedicatedReq.requiresDedicatedAllocation ||
                        dedicatedReq.prefersDedicatedAllocation;
        out.allocationSize = req.memoryRequirements.size;
        out.image.memory = allocateExportable(context, req.memoryRequirements, out.dedicated,
                                              out.image.handle, nullptr);
        setDebugName(context, VK_OBJECT_TYPE_DEVICE_MEMORY, out.image.memory, desc.name);
        VK_CHECK(context.fn->vkBindImageMemory(context.vulkan.device, out.image.handle,
                                               out.image.memory, 0));
        out.image.view =
            createImageView(context, out.image.handle, desc.format, shape, levels, desc.name);
    } catch (...) {
        destroyImage(context, out.image);
        throw;
    }
    return out;
}

void destroyExportedImage(const Context& context, ExportedImage& image) {
    destroyImage(context, image.image);
    image = ExportedImage{};
}

ExportedBuffer createExportedBuffer(const Context& context, VkDeviceSize size,
                                    VkBufferUsageFlags usage, const char* name) {
    if (size == 0) throw runtimeError(std::string(name) + ": a buffer needs at least 1 byte");
    const bool dedicatedOnly = checkBufferExport(context, usage);
    ExportedBuffer out;
    out.buffer.size = size;
    VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    external.handleTypes = kHandleType;
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, &external};
    info.size = size;
    info.usage = usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VK_CHECK(context.fn->vkCreateBuffer(context.vulkan.device, &info, nullptr, &out.buffer.handle));
    setDebugName(context, VK_OBJECT_TYPE_BUFFER, out.buffer.handle, name);

    try { // a failed allocation or bind must not leak the buffer
        VkMemoryDedicatedRequirements dedicatedReq{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
        VkMemoryRequirements2 req{VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, &dedicatedReq};
        VkBufferMemoryRequirementsInfo2 reqInfo{
            VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2};
        reqInfo.buffer = out.buffer.handle;
        context.fn->vkGetBufferMemoryRequirements2(context.vulkan.device, &reqInfo, &req);
        out.dedicated = dedicatedOnly || dedicatedReq.requiresDedicatedAllocation ||
                        dedicatedReq.prefersDedicatedAllocation;
        out.allocationSize = req.memoryRequirements.size;
        out.buffer.memory = allocateExportable(context, req.memoryRequirements, out.dedicated,
                                               nullptr, out.buffer.handle);
        setDebugName(context, VK_OBJECT_TYPE_DEVICE_MEMORY, out.buffer.memory, name);
        VK_CHECK(context.fn->vkBindBufferMemory(context.vulkan.device, out.buffer.handle,
                                                out.buffer.memory, 0));
    } catch (...) {
        destroyBuffer(context, out.buffer);
        throw;
    }
    return out;
}

void destroyExportedBuffer(const Context& context, ExportedBuffer& buffer) {
    destroyBuffer(context, buffer.buffer);
    buffer = ExportedBuffer{};
}

int exportMemoryFd(const Context& context, VkDeviceMemory memory) {
    VkMemoryGetFdInfoKHR info{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
    info.memory = memory;
    info.handleType = kHandleType;
    int fd = -1;
    const PFN_vkGetMemoryFdKHR getFd = context.fn->vkGetMemoryFdKHR;
    if (!getFd) throw missingFunction("vkGetMemoryFdKHR", VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    VK_CHECK(getFd(context.vulkan.device, &info, &fd));
    return fd;
}

int exportSemaphoreFd(const Context& context, VkSemaphore semaphore) {
    VkSemaphoreGetFdInfoKHR info{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
    info.semaphore = semaphore;
    info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    int fd = -1;
    const PFN_vkGetSemaphoreFdKHR getFd = context.fn->vkGetSemaphoreFdKHR;
    if (!getFd)
        throw missingFunction("vkGetSemaphoreFdKHR", VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
    VK_CHECK(getFd(context.vulkan.device, &info, &fd));
    return fd;
}

VkSemaphore createExportableBinarySemaphore(const Context& context, const char* name) {
    VkExportSemaphoreCreateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
    exportInfo.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &exportInfo};
    VkSemaphore semaphore = VK_NULL_HANDLE;
    VK_CHECK(context.fn->vkCreateSemaphore(context.vulkan.device, &info, nullptr, &semaphore));
    setDebugName(context, VK_OBJECT_TYPE_SEMAPHORE, semaphore, name);
    return semaphore;
}

void recordReleaseToExternal(VkCommandBuffer cmd, const Context& context,
                             const ExportedImage& image, VkImageLayout oldLayout,
                             VkPipelineStageFlags2 srcStage, VkAccessFlags2 srcAccess) {
    BarrierScope scope;
    scope.srcStage = srcStage;
    scope.srcAccess = srcAccess;
    // The destination half of a release is ignored; the external user synchronizes through the
    // semaphore signalled after this submission.
    scope.srcQueueFamily = context.vulkan.queueFamily;
    scope.dstQueueFamily = VK_QUEUE_FAMILY_EXTERNAL;
    recordImageBarrier(context, cmd, image.image.handle, oldLayout, VK_IMAGE_LAYOUT_GENERAL, scope);
}

void recordAcquireFromExternal(VkCommandBuffer cmd, const Context& context,
                               const ExportedImage& image, VkImageLayout newLayout,
                               VkPipelineStageFlags2 dstStage, VkAccessFlags2 dstAccess,
                               VkPipelineStageFlags2 waitStage) {
    BarrierScope scope;
    // The source access of an acquire is ignored; its source stage chains to the semaphore wait.
    scope.srcStage = waitStage;
    scope.dstStage = dstStage;
    scope.dstAccess = dstAccess;
    scope.srcQueueFamily = VK_QUEUE_FAMILY_EXTERNAL;
    scope.dstQueueFamily = context.vulkan.queueFamily;
    recordImageBarrier(context, cmd, image.image.handle, VK_IMAGE_LAYOUT_GENERAL, newLayout, scope);
}

void recordReleaseToExternal(VkCommandBuffer cmd, const Context& context,
                             const ExportedBuffer& buffer, VkPipelineStageFlags2 srcStage,
                             VkAccessFlags2 srcAccess) {
    BarrierScope scope;
    scope.srcStage = srcStage;
    scope.srcAccess = srcAccess;
    // As for images: the destination half of a release is ignored.
    scope.srcQueueFamily = context.vulkan.queueFamily;
    scope.dstQueueFamily = VK_QUEUE_FAMILY_EXTERNAL;
    recordBufferBarrier(context, cmd, buffer.buffer.handle, scope);
}

void recordAcquireFromExternal(VkCommandBuffer cmd, const Context& context,
                               const ExportedBuffer& buffer, VkPipelineStageFlags2 dstStage,
                               VkAccessFlags2 dstAccess, VkPipelineStageFlags2 waitStage) {
    BarrierScope scope;
    scope.srcStage = waitStage;
    scope.dstStage = dstStage;
    scope.dstAccess = dstAccess;
    scope.srcQueueFamily = VK_QUEUE_FAMILY_EXTERNAL;
    scope.dstQueueFamily = context.vulkan.queueFamily;
    recordBufferBarrier(context, cmd, buffer.buffer.handle, scope);
}

} // namespace estuary::interop
