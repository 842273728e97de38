#include "pick.h"
#include "renderer_internal.h"
#include "shared_layout.h"
#include "vk_check.h"

#include <algorithm>
#include <cstddef>

namespace estuary {

void createPickState(const Device& device, PickPasses& pick,
                     const std::vector<VkDescriptorSet>& sets, const std::filesystem::path& shader,
                     const std::string& name) {
    pick.shader = shader;
    pick.state =
        createBuffer(device, sizeof(PickState),
                     VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                         VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                     VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, (name + " pick").c_str());
    for (VkDescriptorSet set : sets)
        writeBufferDescriptor(device, set, ESTUARY_BINDING_PICK, pick.state.handle,
                              sizeof(PickState));
}

void preparePick(const Device& device, PickPasses& pick, VkPipelineLayout layout,
                 const VkSpecializationInfo* specialization) {
    if (pick.pipeline) return;
    pick.pipeline = createComputePipeline(device, pick.cache, layout, pick.shader, specialization,
                                          pick.shader.stem().string());
}

void destroyPick(const Device& device, PickPasses& pick) {
    vkDestroyPipeline(device.handle, pick.pipeline, nullptr);
    destroyBuffer(device, pick.state);
    pick = PickPasses{};
}

namespace {

// The state's `pass` set between dispatches, after the last one's reads and writes.
void recordPass(VkCommandBuffer cmd, const PickPasses& pick, uint32_t pass) {
    recordMemoryBarrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                        VK_ACCESS_2_TRANSFER_WRITE_BIT);
    vkCmdUpdateBuffer(cmd, pick.state.handle, offsetof(PickState, pass), sizeof(pass), &pass);
    recordMemoryBarrier(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
}

} // namespace

void recordPickPasses(const PickPasses& pick, VkCommandBuffer cmd, VkPipelineLayout layout,
                      VkDescriptorSet set, const PickQuery& query, uint32_t elements,
                      VkBuffer destination, VkDeviceSize offset) {
    if (!pick.pipeline) throw runtimeError("recordPickPasses: preparePick was not called");
    // After the last pick's passes and copy are done with the state.
    recordMemoryBarrier(
        cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
        VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
        VK_ACCESS_2_TRANSFER_WRITE_BIT);
    PickState start;
    start.cursorX = query.x;
    start.cursorY = query.y;
    start.radius = query.radius;
    vkCmdUpdateBuffer(cmd, pick.state.handle, 0, sizeof(start), &start);
    recordMemoryBarrier(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pick.pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
    const uint32_t groups = gridStrideGroups(elements); // none: the passes find nothing
    vkCmdDispatch(cmd, groups, 1, 1);                   // pass 0: the smallest rank
    recordPass(cmd, pick, 1);
    vkCmdDispatch(cmd, groups, 1, 1); // pass 1: the last element of that rank
    recordPass(cmd, pick, 2);
    vkCmdDispatch(cmd, 1, 1, 1); // pass 2: its vertex, value and position
    recordMemoryBarrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                        VK_ACCESS_2_TRANSFER_READ_BIT);
    const VkBufferCopy region{0, offset, sizeof(PickState)};
    vkCmdCopyBuffer(cmd, pick.state.handle, destination, 1, &region);
}

} // namespace estuary
