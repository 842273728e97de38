// Images and buffers (estuary_create_image/buffer) and what a frame's draw does with them. A
// CUDA-written allocation is an interop ring (cuda_side.cpp): Vulkan takes its slot from CUDA
// before the draw and hands it back after. A host-written one is `copies` device-local images (or
// buffers) and one host-visible staging buffer per host-ring entry: the frame's host writes land
// in the entry's staging memory and the draw uploads them, so the host never waits for more than
// the frames-in-flight limit.
#include "viewer.h"
#include "cuda_side.h"
#include "vk_check.h"

#include "estuary/interop/format_tables.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace estuary::lib {
namespace {

constexpr VkImageUsageFlags kImageUsage =
    VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
constexpr VkBufferUsageFlags kBufferUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT |
    VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
    VK_BUFFER_USAGE_TRANSFER_DST_BIT;
// Where the draw reads what CUDA wrote: vertex (points), fragment and compute shaders (both draw
// paths). The wait on CUDA holds back only those stages, so the target's transitions and clears
// run while CUDA still writes; transfers join when the frame copies or blits such an allocation.
constexpr VkPipelineStageFlags2 kReadStages = VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                                              VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT |
                                              VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
constexpr VkPipelineStageFlags2 kTransferStages =
    VK_PIPELINE_STAGE_2_COPY_BIT | VK_PIPELINE_STAGE_2_BLIT_BIT;

struct FormatInfo {
    VkFormat format;
    uint32_t texelBytes;
    const char* name;
};
FormatInfo formatInfo(estuary_format format) {
    switch (format) {
    case ESTUARY_FORMAT_R32_FLOAT:
        return {VK_FORMAT_R32_SFLOAT, 4, "R32_FLOAT"};
    case ESTUARY_FORMAT_RG32_FLOAT:
        return {VK_FORMAT_R32G32_SFLOAT, 8, "RG32_FLOAT"};
    case ESTUARY_FORMAT_RGBA32_FLOAT:
        return {VK_FORMAT_R32G32B32A32_SFLOAT, 16, "RGBA32_FLOAT"};
    case ESTUARY_FORMAT_RGBA16_FLOAT:
        return {VK_FORMAT_R16G16B16A16_SFLOAT, 8, "RGBA16_FLOAT"};
    case ESTUARY_FORMAT_RGBA8_UNORM:
        return {VK_FORMAT_R8G8B8A8_UNORM, 4, "RGBA8_UNORM"};
    case ESTUARY_FORMAT_MAX_ENUM: // not a format: refused by the caller's checks
        break;
    }
    return {VK_FORMAT_UNDEFINED, 0, "?"};
}

ImageShape shapeOf(const estuary_image_desc& desc) {
    switch (desc.kind) {
    case ESTUARY_IMAGE_3D:
        return {VK_IMAGE_VIEW_TYPE_3D, std::max(desc.depth, 1u), 1};
    case ESTUARY_IMAGE_2D_ARRAY:
        return {VK_IMAGE_VIEW_TYPE_2D_ARRAY, 1, std::max(desc.layers, 1u)};
    case ESTUARY_IMAGE_CUBE:
        return {VK_IMAGE_VIEW_TYPE_CUBE, 1, desc.layers ? desc.layers : 6};
    case ESTUARY_IMAGE_1D:
        return {VK_IMAGE_VIEW_TYPE_1D, 1, 1};
    default:
        return {VK_IMAGE_VIEW_TYPE_2D, 1, 1};
    }
}

estuary_writer resolveWriter(const estuary_viewer& v, estuary_writer asked, const char* what) {
    if (asked == ESTUARY_WRITER_AUTO) return v.cuda ? ESTUARY_WRITER_CUDA : ESTUARY_WRITER_HOST;
    if (asked == ESTUARY_WRITER_CUDA && !v.cuda)
        throw unsupported(std::string(what) +
                          ": writer ESTUARY_WRITER_CUDA needs CUDA, and this "
                          "viewer has none (" +
                          v.cudaChoice + "); use ESTUARY_WRITER_HOST or ESTUARY_WRITER_AUTO");
    if (asked != ESTUARY_WRITER_CUDA && asked != ESTUARY_WRITER_HOST)
        throw usageError(std::string(what) + ": writer " + std::to_string(int(asked)) +
                         " is not one of ESTUARY_WRITER_AUTO, _CUDA, _HOST");
    return asked;
}

// The CUDA side's protocol starts with the first frame after the first CUDA allocation, on both
// APIs at once (interop's FrameTimelines start wherever their first frame is).
void startProtocol(estuary_viewer& v) {
    if (!v.protocolStart) v.protocolStart = v.nextFrame;
}

GpuBuffer createStaging(const Device& device, VkDeviceSize bytes, const std::string& name) {
    return createBuffer(device, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                        name.c_str());
}

void checkMipSupport(const estuary_viewer& v, const estuary_image& image) {
    VkFormatProperties props{};
    vkGetPhysicalDeviceFormatProperties(v.device.physical, image.vkFormat, &props);
    const VkFormatFeatureFlags needed = VK_FORMAT_FEATURE_BLIT_SRC_BIT |
                                        VK_FORMAT_FEATURE_BLIT_DST_BIT |
                                        VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT;
    if ((props.optimalTilingFeatures & needed) != needed)
        throw unsupported(image.name + ": ESTUARY_IMAGE_GENERATE_MIPS needs linear blits of " +
                          interop::formatName(image.vkFormat) + ", which " +
                          v.physical.properties.deviceName +
                          " lacks; write the mip levels yourself");
}

// Host images start defined: cleared to 0 and readable by shaders, so a view may draw one before
// anything was written.
void clearForSampling(estuary_viewer& v, const std::vector<VkImage>& images) {
    submitAndWait(v.device, v.pool, [&](VkCommandBuffer cmd) {
        for (VkImage image : images) {
            ImageTransition toClear;
            toClear.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
            toClear.dstStage = VK_PIPELINE_STAGE_2_CLEAR_BIT;
            toClear.dstAccess = VK_ACCESS_2_TRANSFER_WRITE_BIT;
            recordImageBarrier(cmd, image, toClear);
            const VkClearColorValue zero{};
            const VkImageSubresourceRange all{VK_IMAGE_ASPECT_COLOR_BIT, 0, VK_REMAINING_MIP_LEVELS,
                                              0, VK_REMAINING_ARRAY_LAYERS};
            vkCmdClearColorImage(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &zero, 1, &all);
            ImageTransition toSample;
            toSample.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
            toSample.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
            toSample.srcStage = VK_PIPELINE_STAGE_2_CLEAR_BIT;
            toSample.srcAccess = VK_ACCESS_2_TRANSFER_WRITE_BIT;
            toSample.dstStage = kReadStages;
            toSample.dstAccess = VK_ACCESS_2_SHADER_SAMPLED_READ_BIT;
            recordImageBarrier(cmd, image, toSample);
        }
    });
}

void createHostImage(estuary_viewer& v, estuary_image& image) {
    for (uint32_t copy = 0; copy < image.copies; ++copy) {
        const std::string name = image.name + ", copy " + std::to_string(copy);
        if (v.consumer == ESTUARY_CONSUMER_OPENGL) { // OpenGL imports them
            interop::ExportedImageDesc desc;
            desc.format = image.vkFormat;
            desc.extent = image.extent;
            desc.shape = image.shape;
            desc.mipLevels = image.levels;
            desc.usage = kImageUsage;
            desc.name = name.c_str();
            image.exported.push_back(interop::createExportedImage(v.interop, desc));
        } else {
            image.images.push_back(createImage(v.device, image.extent, image.shape, image.vkFormat,
                                               image.levels, kImageUsage, name.c_str()));
        }
    }
    for (uint32_t entry = 0; entry < v.hostRing; ++entry)
        image.staging.push_back(createStaging(v.device, image.stagingBytes,
                                              image.name + " staging " + std::to_string(entry)));
    std::vector<VkImage> handles;
    for (uint32_t copy = 0; copy < image.copies; ++copy)
        handles.push_back(vulkanImage(image, copy).handle);
    clearForSampling(v, handles);
}

// All levels in TRANSFER_DST_OPTIMAL with level 0 written: each level blitted (linear, a 2x2(x2)
// mean for even sizes) from the one above, every level left SHADER_READ_ONLY_OPTIMAL.
void recordMipBlits(VkCommandBuffer cmd, const estuary_image& image, VkImage handle) {
    const bool is3d = image.shape.viewType == VK_IMAGE_VIEW_TYPE_3D;
    const auto extentOf = [&](uint32_t level) {
        return VkOffset3D{int32_t(std::max(1u, image.extent.width >> level)),
                          int32_t(std::max(1u, image.extent.height >> level)),
                          int32_t(is3d ? std::max(1u, image.shape.depth >> level) : 1u)};
    };
    const uint32_t layers = is3d ? 1 : image.shape.layers;
    for (uint32_t level = 1; level < image.levels; ++level) {
        ImageTransition toSource;
        toSource.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
        toSource.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
        toSource.srcStage = kTransferStages;
        toSource.srcAccess = VK_ACCESS_2_TRANSFER_WRITE_BIT;
        toSource.dstStage = VK_PIPELINE_STAGE_2_BLIT_BIT;
        toSource.dstAccess = VK_ACCESS_2_TRANSFER_READ_BIT;
        toSource.baseMip = level - 1;
        toSource.mipCount = 1;
        recordImageBarrier(cmd, handle, toSource);
        VkImageBlit blit{};
        blit.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level - 1, 0, layers};
        blit.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, 0, layers};
        blit.srcOffsets[1] = extentOf(level - 1);
        blit.dstOffsets[1] = extentOf(level);
        vkCmdBlitImage(cmd, handle, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, handle,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, VK_FILTER_LINEAR);
    }
    ImageTransition readSources;
    readSources.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    readSources.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    readSources.srcStage = VK_PIPELINE_STAGE_2_BLIT_BIT;
    readSources.dstStage = kReadStages;
    readSources.dstAccess = VK_ACCESS_2_SHADER_SAMPLED_READ_BIT;
    readSources.baseMip = 0;
    readSources.mipCount = image.levels - 1;
    if (image.levels > 1) recordImageBarrier(cmd, handle, readSources);
    ImageTransition readLast = readSources;
    readLast.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    readLast.srcStage = kTransferStages;
    readLast.srcAccess = VK_ACCESS_2_TRANSFER_WRITE_BIT;
    readLast.baseMip = image.levels - 1;
    readLast.mipCount = 1;
    recordImageBarrier(cmd, handle, readLast);
}

void recordHostUpload(VkCommandBuffer cmd, const estuary_image& image, uint32_t entry,
                      VkImage handle) {
    if (!image.generateMips) {
        recordUploadForSampling(cmd, image.staging[entry].handle, handle, image.regions);
        return;
    }
    ImageTransition toCopy;
    toCopy.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED; // every level is rewritten
    toCopy.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    toCopy.srcStage = kReadStages; // the previous frame's reads of this copy
    toCopy.dstStage = kTransferStages;
    toCopy.dstAccess = VK_ACCESS_2_TRANSFER_WRITE_BIT;
    recordImageBarrier(cmd, handle, toCopy);
    vkCmdCopyBufferToImage(cmd, image.staging[entry].handle, handle,
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &image.regions[0]);
    recordMipBlits(cmd, image, handle);
}

// The entry's staging memory of a host buffer into the frame's copy, after the draws that read
// that copy before (vertex, fragment, compute shaders, copies) and before this frame's.
void recordHostBufferUpload(VkCommandBuffer cmd, const estuary_buffer& buffer, uint32_t entry,
                            uint32_t copy) {
    const auto barrier = [&](VkPipelineStageFlags2 srcStage, VkAccessFlags2 srcAccess,
                             VkPipelineStageFlags2 dstStage, VkAccessFlags2 dstAccess) {
        VkBufferMemoryBarrier2 b{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2};
        b.srcStageMask = srcStage;
        b.srcAccessMask = srcAccess;
        b.dstStageMask = dstStage;
        b.dstAccessMask = dstAccess;
        b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        b.buffer = buffer.host[copy].handle;
        b.size = VK_WHOLE_SIZE;
        VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
        dep.bufferMemoryBarrierCount = 1;
        dep.pBufferMemoryBarriers = &b;
        vkCmdPipelineBarrier2(cmd, &dep);
    };
    barrier(kReadStages | kTransferStages, VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_COPY_BIT,
            VK_ACCESS_2_TRANSFER_WRITE_BIT);
    const VkBufferCopy region{0, 0, buffer.size};
    vkCmdCopyBuffer(cmd, buffer.host[buffer.copies + entry].handle, buffer.host[copy].handle, 1,
                    &region);
    barrier(VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
            kReadStages | kTransferStages,
            VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_TRANSFER_READ_BIT);
}

} // namespace

std::pair<std::array<float, 3>, std::array<float, 3>> imagePlacement(const estuary_image_desc& desc,
                                                                     const std::string& name) {
    std::array<float, 3> origin{}, spacing{};
    static const char* const kAxes[] = {"x", "y", "z"};
    for (size_t a = 0; a < 3; ++a) {
        origin[a] = desc.origin[a];
        spacing[a] = desc.spacing[a] == 0.0f ? 1.0f : desc.spacing[a];
        if (!std::isfinite(origin[a]))
            throw usageError(name + ": origin[" + std::to_string(a) + "] (" + kAxes[a] +
                             ") is not finite; where cell 0's centre lies must be a finite number");
        if (!std::isfinite(spacing[a]) || spacing[a] < 0.0f)
            throw usageError(name + ": spacing[" + std::to_string(a) + "] (" + kAxes[a] + ") is " +
                             std::to_string(desc.spacing[a]) +
                             "; the step between cells must be finite and > 0 (0: 1)");
    }
    return {origin, spacing};
}

uint32_t copyOf(const estuary_image& image, uint64_t frame) {
    return image.copies == 1 ? 0 : uint32_t(frame % image.copies);
}
uint32_t copyOf(const estuary_buffer& buffer, uint64_t frame) {
    return buffer.copies == 1 ? 0 : uint32_t(frame % buffer.copies);
}

const GpuImage& vulkanImage(const estuary_image& image, uint32_t copy) {
    if (image.writer == ESTUARY_WRITER_CUDA) return cudaExportedImage(image, copy).image;
    return image.exported.empty() ? image.images[copy] : image.exported[copy].image;
}

VkBuffer vulkanBuffer(const estuary_buffer& buffer, uint32_t copy) {
    return buffer.writer == ESTUARY_WRITER_CUDA ? cudaExportedBuffer(buffer, copy).buffer.handle
                                                : buffer.host[copy].handle;
}

VkDeviceSize levelBytes(const estuary_image& image, uint32_t level) {
    const VkExtent3D e = image.regions[level].imageExtent;
    return VkDeviceSize(e.width) * e.height * e.depth *
           image.regions[level].imageSubresource.layerCount * image.texelBytes;
}

const void* hostTexel(const estuary_image& image, uint32_t entry, uint32_t x, uint32_t y) {
    return static_cast<const uint8_t*>(image.staging[entry].mapped) +
           image.regions[0].bufferOffset +
           (VkDeviceSize(y) * image.extent.width + x) * image.texelBytes;
}

// A single CUDA-written copy waits for every earlier draw; the OpenGL consumer's binary hand-off
// has one semaphore per slot, each waited for once, so it cannot express that wait.
void checkSingle(const estuary_viewer& v, estuary_writer writer, bool single,
                 const std::string& name) {
    if (single && writer == ESTUARY_WRITER_CUDA && v.slots > 1 && v.gl &&
        v.glHandoff == ESTUARY_GL_HANDOFF_BINARY)
        throw unsupported(name + ": ESTUARY_ALLOC_SINGLE with the OpenGL consumer needs the "
                                 "timeline hand-off (or the host one); the binary hand-off "
                                 "cannot wait for every earlier draw");
}

estuary_image* createImage(estuary_viewer& v, const estuary_image_desc& desc) {
    const FormatInfo format = formatInfo(desc.format);
    const std::string name = desc.name && *desc.name ? desc.name : "image";
    if (format.format == VK_FORMAT_UNDEFINED)
        throw usageError(name + ": format " + std::to_string(int(desc.format)) +
                         " is not an estuary_format (ESTUARY_FORMAT_R32_FLOAT .. "
                         "ESTUARY_FORMAT_RGBA8_UNORM)");
    if (desc.kind < ESTUARY_IMAGE_2D || desc.kind > ESTUARY_IMAGE_1D)
        throw usageError(name + ": kind " + std::to_string(int(desc.kind)) +
                         " is not an estuary_image_kind (2D, 3D, 2D_ARRAY, CUBE, 1D)");
    if (desc.flags & ~(ESTUARY_ALLOC_SINGLE | ESTUARY_IMAGE_GENERATE_MIPS))
        throw usageError(name + ": unknown flags 0x" + [&] {
            char hex[16];
            std::snprintf(hex, sizeof(hex), "%x", desc.flags);
            return std::string(hex);
        }() + " (allowed: ESTUARY_ALLOC_SINGLE, ESTUARY_IMAGE_GENERATE_MIPS)");
    const auto [origin, spacing] = imagePlacement(desc, name);
    auto image = std::make_unique<estuary_image>();
    estuary_image& i = *image;
    i.viewer = &v;
    i.name = name;
    i.origin = origin;
    i.spacing = spacing;
    i.format = desc.format;
    i.kind = desc.kind;
    i.vkFormat = format.format;
    i.texelBytes = format.texelBytes;
    i.shape = shapeOf(desc);
    const uint32_t height = desc.kind == ESTUARY_IMAGE_1D && desc.height == 0 ? 1 : desc.height;
    i.extent = {desc.width, height};
    if (desc.kind != ESTUARY_IMAGE_3D && desc.depth > 1)
        throw usageError(name + ": depth " + std::to_string(desc.depth) +
                         " is for 3D images only (kind ESTUARY_IMAGE_3D)");
    if (const std::string problem = checkImageShape(i.extent, i.shape); !problem.empty())
        throw usageError(name + ": " + problem);
    const uint32_t full = fullMipCount(i.extent.width, i.extent.height, i.shape.depth);
    if (desc.levels > full || desc.levels > 16)
        throw usageError(name + ": " + std::to_string(desc.levels) + " mip levels; a " +
                         std::to_string(i.extent.width) + "x" + std::to_string(i.extent.height) +
                         (i.shape.depth > 1 ? "x" + std::to_string(i.shape.depth) : "") +
                         " image has 1.." + std::to_string(std::min(full, 16u)) +
                         " (0: the full chain)");
    i.levels = desc.levels ? desc.levels : std::min(full, 16u);
    i.copies = (desc.flags & ESTUARY_ALLOC_SINGLE) ? 1 : v.slots;
    i.generateMips = (desc.flags & ESTUARY_IMAGE_GENERATE_MIPS) && i.levels > 1;
    i.writer = resolveWriter(v, desc.writer, name.c_str());
    checkSingle(v, i.writer, i.copies == 1, name);
    i.regions = mipChainRegions(i.extent, i.levels, i.texelBytes, 16, i.stagingBytes, i.shape);
    if (i.generateMips) checkMipSupport(v, i);
    checkFits(v, uint64_t(i.stagingBytes) * i.copies,
              i.writer == ESTUARY_WRITER_HOST ? uint64_t(i.stagingBytes) * v.hostRing : 0,
              name + " (" + format.name + ", " + std::to_string(i.copies) + " copies)");
    if (v.faultAllocFail) {
        v.faultAllocFail = false;
        throwVkFailure(VK_ERROR_OUT_OF_DEVICE_MEMORY, "vkAllocateMemory (estuary_inject_fault)",
                       __FILE__, __LINE__);
    }
    waitIdle(v, "making an image");
    if (i.writer == ESTUARY_WRITER_CUDA) {
        createCudaImage(v, i, kImageUsage);
        startProtocol(v);
    } else {
        createHostImage(v, i);
    }
    if (v.gl) glImportImage(v, i);
    ++v.drawVersion;
    v.images.push_back(std::move(image));
    return v.images.back().get();
}

estuary_buffer* createBuffer(estuary_viewer& v, const estuary_buffer_desc& desc) {
    const std::string name = desc.name && *desc.name ? desc.name : "buffer";
    if (desc.size == 0) throw usageError(name + ": size 0; a buffer holds at least 1 byte");
    if (desc.flags & ~ESTUARY_ALLOC_SINGLE)
        throw usageError(name + ": unknown flags (allowed: ESTUARY_ALLOC_SINGLE)");
    auto buffer = std::make_unique<estuary_buffer>();
    estuary_buffer& b = *buffer;
    b.viewer = &v;
    b.name = name;
    b.size = desc.size;
    b.copies = (desc.flags & ESTUARY_ALLOC_SINGLE) ? 1 : v.slots;
    b.writer = resolveWriter(v, desc.writer, name.c_str());
    checkSingle(v, b.writer, b.copies == 1, name);
    checkFits(v, b.size * b.copies, b.writer == ESTUARY_WRITER_HOST ? b.size * v.hostRing : 0,
              name + " (" + std::to_string(b.size) + " bytes, " + std::to_string(b.copies) +
                  " copies)");
    if (v.faultAllocFail) {
        v.faultAllocFail = false;
        throwVkFailure(VK_ERROR_OUT_OF_DEVICE_MEMORY, "vkAllocateMemory (estuary_inject_fault)",
                       __FILE__, __LINE__);
    }
    waitIdle(v, "making a buffer");
    if (b.writer == ESTUARY_WRITER_CUDA) {
        createCudaBuffer(v, b, kBufferUsage);
        startProtocol(v);
    } else {
        // In whole 4-byte words: the shaders read a channel's last half-float with its word.
        for (uint32_t copy = 0; copy < b.copies; ++copy)
            b.host.push_back(createBuffer(v.device, (b.size + 3) & ~uint64_t(3), kBufferUsage,
                                          VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                                          (name + ", copy " + std::to_string(copy)).c_str()));
        for (uint32_t entry = 0; entry < v.hostRing; ++entry)
            b.host.push_back(
                createStaging(v.device, b.size, name + " staging " + std::to_string(entry)));
        // Defined from the start, as host images are.
        submitAndWait(v.device, v.pool, [&](VkCommandBuffer cmd) {
            for (uint32_t copy = 0; copy < b.copies; ++copy)
                vkCmdFillBuffer(cmd, b.host[copy].handle, 0, VK_WHOLE_SIZE, 0);
        });
    }
    ++v.drawVersion;
    v.buffers.push_back(std::move(buffer));
    return v.buffers.back().get();
}

void destroyImage(estuary_viewer& v, estuary_image* image) {
    if (image->viewUsers > 0)
        throw usageError(image->name + " is drawn by " + std::to_string(image->viewUsers) +
                         " view(s): destroy them first");
    waitIdle(v, "destroying an image");
    forgetGraphs(v); // a captured frame may write it
    if (v.gl) glForgetImage(v, *image);
    ++v.drawVersion;
    std::erase_if(v.images, [&](const auto& p) { return p.get() == image; });
}

void destroyBuffer(estuary_viewer& v, estuary_buffer* buffer) {
    if (buffer->viewUsers > 0)
        throw usageError(buffer->name + " is drawn by " + std::to_string(buffer->viewUsers) +
                         " view(s): destroy them first");
    waitIdle(v, "destroying a buffer");
    forgetGraphs(v); // a captured frame may write it
    ++v.drawVersion;
    std::erase_if(v.buffers, [&](const auto& p) { return p.get() == buffer; });
}

DrawSet drawSet(const estuary_viewer& v, const estuary_frame& frame) {
    DrawSet set;
    const auto addImage = [&](estuary_image* image) {
        if (image && std::find(set.images.begin(), set.images.end(), image) == set.images.end())
            set.images.push_back(image);
    };
    const auto addBuffer = [&](estuary_buffer* buffer) {
        if (buffer &&
            std::find(set.buffers.begin(), set.buffers.end(), buffer) == set.buffers.end())
            set.buffers.push_back(buffer);
    };
    for (const auto& view : v.views)
        if (view->params.visible)
            for (const ViewInput& input : view->inputs) {
                addImage(input.image);
                addBuffer(input.buffer);
            }
    for (const ReadRequest& read : v.entries[frame.entry].reads) {
        addImage(read.image);
        addBuffer(read.buffer);
    }
    // Host-written allocations the frame wrote reach their copy even when nothing draws them.
    for (const auto& image : v.images)
        if (image->writer == ESTUARY_WRITER_HOST && image->writtenFrame == frame.index)
            addImage(image.get());
    for (const auto& buffer : v.buffers)
        if (buffer->writer == ESTUARY_WRITER_HOST && buffer->writtenFrame == frame.index)
            addBuffer(buffer.get());
    return set;
}

bool usesCuda(const DrawSet& set) {
    return std::any_of(set.images.begin(), set.images.end(),
                       [](const estuary_image* i) { return i->writer == ESTUARY_WRITER_CUDA; }) ||
           std::any_of(set.buffers.begin(), set.buffers.end(),
                       [](const estuary_buffer* b) { return b->writer == ESTUARY_WRITER_CUDA; });
}

VkPipelineStageFlags2 cudaWaitStage(const DrawSet& set) {
    VkPipelineStageFlags2 stage = kReadStages;
    for (const estuary_image* image : set.images)
        if (image->writer == ESTUARY_WRITER_CUDA && image->generateMips) stage |= kTransferStages;
    return stage | kTransferStages; // readbacks copy CUDA's allocations too
}

void recordBeforeDraw(estuary_viewer& v, VkCommandBuffer cmd, uint64_t frame, const DrawSet& set,
                      VkPipelineStageFlags2 waitStage) {
    const uint32_t entry = uint32_t(frame % v.hostRing);
    for (estuary_image* image : set.images) {
        const uint32_t copy = copyOf(*image, frame);
        if (image->writer == ESTUARY_WRITER_CUDA) {
            const interop::ExportedImage& exported = cudaExportedImage(*image, copy);
            if (!image->generateMips) {
                interop::recordAcquireFromExternal(
                    cmd, v.interop, exported, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                    kReadStages | kTransferStages,
                    VK_ACCESS_2_SHADER_SAMPLED_READ_BIT | VK_ACCESS_2_TRANSFER_READ_BIT, waitStage);
                continue;
            }
            interop::recordAcquireFromExternal(
                cmd, v.interop, exported, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, kTransferStages,
                VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT, waitStage);
            recordMipBlits(cmd, *image, exported.image.handle);
        } else if (image->writtenFrame == frame) {
            recordHostUpload(cmd, *image, entry, vulkanImage(*image, copy).handle);
        }
    }
    for (estuary_buffer* buffer : set.buffers) {
        const uint32_t copy = copyOf(*buffer, frame);
        if (buffer->writer == ESTUARY_WRITER_CUDA)
            interop::recordAcquireFromExternal(
                cmd, v.interop, cudaExportedBuffer(*buffer, copy), kReadStages | kTransferStages,
                VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_TRANSFER_READ_BIT, waitStage);
        else if (buffer->writtenFrame == frame)
            recordHostBufferUpload(cmd, *buffer, entry, copy);
    }
}

void recordAfterDraw(estuary_viewer& v, VkCommandBuffer cmd, uint64_t frame, const DrawSet& set) {
    for (estuary_image* image : set.images)
        if (image->writer == ESTUARY_WRITER_CUDA)
            interop::recordReleaseToExternal(cmd, v.interop,
                                             cudaExportedImage(*image, copyOf(*image, frame)),
                                             VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                             kReadStages | kTransferStages, VK_ACCESS_2_NONE);
    for (estuary_buffer* buffer : set.buffers)
        if (buffer->writer == ESTUARY_WRITER_CUDA)
            interop::recordReleaseToExternal(
                cmd, v.interop, cudaExportedBuffer(*buffer, copyOf(*buffer, frame)),
                kReadStages | VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT | kTransferStages,
                VK_ACCESS_2_NONE);
}

} // namespace estuary::lib

estuary_image::~estuary_image() {
    if (!viewer) return;
    const estuary::Device& device = viewer->device;
    if (cuda) estuary::lib::destroyCudaImage(*viewer, *this);
    for (estuary::GpuImage& i : images)
        estuary::destroyImage(device, i);
    for (estuary::interop::ExportedImage& e : exported)
        estuary::interop::destroyExportedImage(viewer->interop, e);
    for (estuary::GpuBuffer& s : staging)
        estuary::destroyBuffer(device, s);
}

estuary_buffer::~estuary_buffer() {
    if (!viewer) return;
    if (cuda) estuary::lib::destroyCudaBuffer(*viewer, *this);
    for (estuary::GpuBuffer& h : host)
        estuary::destroyBuffer(viewer->device, h);
}
