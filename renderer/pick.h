// Picking a buffer view's elements (shaders/pick.glsl): which element is drawn at a point of the
// picture, or nearest it within a radius, with its nearest vertex, value and position, found on
// the GPU by three compute passes over the elements (each placed as its draw places it) and
// copied to a buffer of the caller's. The points' and meshes' renderers each own a PickPasses:
// the state the passes share (one for all slots: each pick's barriers order it after the last)
// and, once preparePick made them, the passes' pipeline.
#pragma once

#include "renderer.h"
#include "resources.h"

#include <filesystem>
#include <string>
#include <vector>

namespace estuary {

// What a pick leaves in its state (std430: pick.glsl's PickState), copied out whole.
struct PickState {
    float cursorX = 0.0f, cursorY = 0.0f, radius = 0.0f;
    uint32_t pass = 0;
    uint32_t rank = 0xFFFFFFFFu;
    uint32_t winner = 0; // element + 1; 0: nothing within the radius
    uint32_t vertex = 0;
    float distance = 0.0f, value = 0.0f, x = 0.0f, y = 0.0f, z = 0.0f;
};
static_assert(sizeof(PickState) == 48, "PickState must match pick.glsl's std430 block");

// The point (pixels, the picture's top-left corner at 0, 0) and how far beyond an element's shape
// it may lie (pixels).
struct PickQuery {
    float x = 0.0f, y = 0.0f;
    float radius = 0.0f;
};

struct PickPasses {
    GpuBuffer state;
    std::filesystem::path shader; // the passes' SPIR-V
    VkPipeline pipeline = VK_NULL_HANDLE;
    PipelineCache* cache = nullptr; // the kit's, which preparePick creates the pipeline with
};

// The state buffer, bound at ESTUARY_BINDING_PICK in every set of `sets` (whose layout has the
// binding, a storage buffer for compute), and the passes' shader (a path shaderPath gave).
void createPickState(const Device& device, PickPasses& pick,
                     const std::vector<VkDescriptorSet>& sets, const std::filesystem::path& shader,
                     const std::string& name);
// Makes the passes' pipeline once; later calls do nothing. Not per frame: it compiles. Throws a
// runtime error naming a missing or malformed shader.
void preparePick(const Device& device, PickPasses& pick, VkPipelineLayout layout,
                 const VkSpecializationInfo* specialization = nullptr);
void destroyPick(const Device& device, PickPasses& pick);

// Records the passes over `elements` elements of `set` (the caller pushed the draw's constants
// for compute), then the state's copy into `destination` at `offset` (48 bytes), made visible to
// later copies; outside a render pass.
void recordPickPasses(const PickPasses& pick, VkCommandBuffer cmd, VkPipelineLayout layout,
                      VkDescriptorSet set, const PickQuery& query, uint32_t elements,
                      VkBuffer destination, VkDeviceSize offset);

} // namespace estuary
