// The renderer's own helpers shared by its source files (not installed, not for callers): debug
// names, descriptor writes, SPIR-V loading, and the pipelines (renderer_pipelines.cpp): the field's
// and the particles' graphics pipelines and the compute draw's pipeline, set layout and sets.
#pragma once

#include "renderer.h"

#include <filesystem>
#include <string>

namespace estuary {

template <typename Handle>
void nameObject(const Device& device, VkObjectType type, Handle handle, const std::string& name) {
    setDebugName(device, type, reinterpret_cast<uint64_t>(handle), name.c_str());
}

// One image descriptor (a sampler, or a storage image) of `set` pointed at `info`.
inline void writeImageDescriptor(const Device& device, VkDescriptorSet set, uint32_t binding,
                                 VkDescriptorType type, const VkDescriptorImageInfo& info) {
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = set;
    write.dstBinding = binding;
    write.descriptorCount = 1;
    write.descriptorType = type;
    write.pImageInfo = &info;
    vkUpdateDescriptorSets(device.handle, 1, &write, 0, nullptr);
}

// Throws a runtime error naming the file when it is missing or not SPIR-V.
VkShaderModule loadShaderModule(const Device& device, const std::filesystem::path& path);

// The pipeline layout, the field's pipeline (unless RendererDesc::compute) and the particles'.
void createPipelines(const Device& device, Renderer& renderer, const RendererDesc& desc);

// RendererDesc::compute: the fragment shader's compute twin with its own set layout (field,
// colormaps, storage image), layout and one set per slot from the renderer's pool.
void createComputeDraw(const Device& device, Renderer& renderer, const RendererDesc& desc);

} // namespace estuary
