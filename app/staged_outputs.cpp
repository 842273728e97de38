#include "staged_outputs.h"
#include "estuary/interop/exported.h"
#include "simulations.h"

#include <cstring>
#include <string>

namespace estuary {
namespace {

void destroyStagedImage(const Device& device, StagedImage& image) {
    for (GpuImage& i : image.images)
        destroyImage(device, i);
    for (GpuBuffer& b : image.staging)
        destroyBuffer(device, b);
    image = StagedImage{};
}

StagedImage createStagedImage(const Device& device, const sim::ImageOutput& output, uint32_t slots,
                              const interop::Context* exportedWith) {
    StagedImage staged;
    staged.output = output;
    const VkExtent2D extent{output.width, output.height};
    const ImageShape shape = imageShapeOf(output);
    const uint32_t levels = sim::levelCount(output);
    VkDeviceSize bytes = 0;
    // Tightly packed levels, slices within a level: the layout of sim::HostImageTarget.
    staged.regions =
        mipChainRegions(extent, levels, sim::texelBytes(output.format), 1, bytes, shape);
    try { // the slots made so far are released if a later one fails
        for (uint32_t slot = 0; slot < slots; ++slot) {
            const std::string name = output.name + ", slot " + std::to_string(slot);
            const VkImageUsageFlags usage = VK_IMAGE_USAGE_SAMPLED_BIT |
                                            VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                            VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
            if (exportedWith) {
                interop::ExportedImageDesc desc;
                desc.format = vulkanFormat(output.format);
                desc.extent = extent;
                desc.shape = shape;
                desc.mipLevels = levels;
                desc.usage = usage;
                desc.name = name.c_str();
                interop::ExportedImage image = interop::createExportedImage(*exportedWith, desc);
                staged.shared.push_back({image.image.memory, image.allocationSize, image.dedicated,
                                         desc.format, extent, levels});
                staged.images.push_back(std::move(image.image));
            } else {
                staged.images.push_back(createImage(device, extent, shape,
                                                    vulkanFormat(output.format), levels, usage,
                                                    name.c_str()));
            }
            staged.staging.push_back(createBuffer(device, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                                  (name + " staging").c_str()));
        }
    } catch (...) {
        destroyStagedImage(device, staged);
        throw;
    }
    return staged;
}

} // namespace

StagedOutputs createStagedOutputs(const Device& device, const sim::OutputLayout& layout,
                                  uint32_t slots, const interop::Context* exportedWith) {
    StagedOutputs out;
    try { // what was made so far is released if a later allocation fails
        for (const sim::ImageOutput& image : layout.images)
            out.images.push_back(createStagedImage(device, image, slots, exportedWith));
        for (const sim::BufferOutput& buffer : layout.buffers) {
            out.buffers.emplace_back();
            for (uint32_t slot = 0; slot < slots; ++slot)
                out.buffers.back().push_back(createBuffer(
                    device, buffer.bytes,
                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT |
                        VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                    (buffer.name + ", slot " + std::to_string(slot)).c_str()));
        }
    } catch (...) {
        destroyStagedOutputs(device, out);
        throw;
    }
    out.slots.reserve(slots);
    for (uint32_t slot = 0; slot < slots; ++slot) {
        StagedSlotTargets& t = out.slots.emplace_back();
        for (const StagedImage& image : out.images) {
            std::vector<void*>& levels = t.levelPointers.emplace_back();
            for (const VkBufferImageCopy& region : image.regions)
                levels.push_back(static_cast<uint8_t*>(image.staging[slot].mapped) +
                                 region.bufferOffset);
        }
        for (const std::vector<void*>& levels : t.levelPointers)
            t.images.push_back(sim::HostImageTarget{levels});
        for (const std::vector<GpuBuffer>& buffer : out.buffers)
            t.buffers.push_back(buffer[slot].mapped);
    }
    return out;
}

void destroyStagedOutputs(const Device& device, StagedOutputs& outputs) {
    for (StagedImage& image : outputs.images)
        destroyStagedImage(device, image);
    for (std::vector<GpuBuffer>& buffers : outputs.buffers)
        for (GpuBuffer& b : buffers)
            destroyBuffer(device, b);
    outputs = StagedOutputs{};
}

void recordStagedUpload(VkCommandBuffer cmd, const StagedOutputs& outputs, uint32_t slot) {
    for (const StagedImage& image : outputs.images)
        recordUploadForSampling(cmd, image.staging[slot].handle, image.images[slot].handle,
                                image.regions);
}

void* stagedTexel(const StagedOutputs& outputs, uint32_t image, uint32_t slot, uint32_t x,
                  uint32_t y) {
    const StagedImage& staged = outputs.images[image];
    return static_cast<uint8_t*>(outputs.slots[slot].levelPointers[image][0]) +
           (size_t(y) * staged.output.width + x) * sim::texelBytes(staged.output.format);
}

StagedBackend::StagedBackend(const Device& device, const interop::Context& context,
                             const BackendConfig& config)
    : device_(device), layout_(checkedOutputs(config)),
      outputs_(createStagedOutputs(device, layout_, config.slots,
                                   config.exportOutputs ? &context : nullptr)),
      display_(config.displayImage), stampFrames_(config.stampFrameIndex),
      simMs_(config.slots, kNotMeasured),
      spans_(config.slots, {kNotMeasured, kNotMeasured, kNotMeasured}) {}

void StagedBackend::publishSlot(uint64_t frame, uint32_t slot) {
    if (stampFrames_) {
        writeStampTexel(stagedTexel(outputs_, display_, slot, 0, 0),
                        layout_.images[display_].format, float(frame));
        for (size_t b = 0; b < layout_.buffers.size(); ++b) {
            const float stamp = float(frame);
            std::memcpy(static_cast<uint8_t*>(outputs_.slots[slot].buffers[b]) +
                            layout_.buffers[b].bytes - sizeof(float),
                        &stamp, sizeof(stamp));
        }
    }
    if (probe_.active())
        probe_.value = probeValueOf(
            stagedTexel(outputs_, display_, slot, uint32_t(probe_.x), uint32_t(probe_.y)),
            layout_.images[display_].format);
}

} // namespace estuary
