// The labels renderer: strings from a table drawn at anchors a buffer holds (a CUDA kernel writes
// them each frame; the host never reads them). The table is laid out once into glyph runs (per
// string its glyphs' quads in em units from the anchor, already aligned, and their texture
// coordinates) in a buffer of the renderer's own; each frame one draw of
// count x longest-string glyph quads (six vertices each), the vertex shader
// (viewer/views/labels/labels_vertex.glsl) reading each label's anchor (position channel) and
// string (index channel) through attributes.glsl and placing it as the buffer views place elements
// (points_place.glsl): 2D in the cells of the field below or the view's bounds, 3D under the orbit
// camera. A string index past the table draws nothing. Glyphs are filled by text.frag from the font
// image (text.h). The compute path (LabelsDesc::compute, recordLabelsCompute) draws the same glyphs
// without the rasterizer: each glyph's pixels' coverage kept as the largest by atomicMax in a
// buffer of the picture's size, then blended in the view's one colour (so the order glyphs run in
// does not matter) and cleared back (viewer/views/labels/labels_splat.glsl, labels_resolve.comp).
#pragma once

#include "annotation.h"
#include "attributes.h"
#include "points.h"
#include "text.h"

#include <string>
#include <vector>

namespace estuary {

struct LabelsDesc {
    Kit* kit = nullptr; // required, outliving the renderer
    VkFormat targetFormat = VK_FORMAT_R8G8B8A8_UNORM;
    std::filesystem::path dataDir;
    std::filesystem::path fontFile; // empty: the default font
    uint32_t slotCount = 1;
    bool threeD = false;
    AttributeChannels channels{}; // the position and index channels read
    std::vector<std::string> strings;
    AlignX alignX = AlignX::Left;
    AlignY alignY = AlignY::Bottom;
    bool compute = false; // also make the compute path (recordLabelsCompute)
};

struct LabelsRenderer : MoveOnly {
    Kit* kit = nullptr;
    bool threeD = false;
    FontImage font;
    AttributeChannels channels{};
    AttributeSpecialization specialization;
    std::vector<AttributeBuffer> mainBuffers;                                // per slot
    std::vector<std::array<AttributeBuffer, kAttributeChannels>> ownBuffers; // per slot
    GpuBuffer runs; // the strings' glyph runs (host-visible, written once)
    uint32_t stringCount = 0, maxGlyphs = 0;
    VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
    VkPipelineLayout pipelineLayout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
    std::vector<VkDescriptorSet> slotSets;
    // LabelsDesc::compute: the passes' layout and pipelines, and per slot the coverage buffer
    // (made for the picture's extent at first use), that extent and the storage target its set
    // names.
    VkPipelineLayout computeLayout = VK_NULL_HANDLE;
    VkPipeline splatPipeline = VK_NULL_HANDLE, resolvePipeline = VK_NULL_HANDLE;
    std::vector<GpuBuffer> coverage;
    std::vector<VkExtent2D> coverageExtents;
    std::vector<VkImageView> computeTargets;
};

// The glyph-run table of `strings` (uvec4s as labels_vertex.glsl reads them) and the most glyphs
// of one string. Pure: tests read it.
std::vector<uint32_t> labelRuns(const FontAtlas& font, const std::vector<std::string>& strings,
                                AlignX alignX, AlignY alignY, uint32_t& maxGlyphs);

LabelsRenderer createLabelsRenderer(const Device& device, const LabelsDesc& desc);
void destroyLabelsRenderer(const Device& device, LabelsRenderer& renderer);
// The slot's main buffer (the channels not in their own) and a channel's own buffer.
void setLabelsBuffer(const Device& device, LabelsRenderer& renderer, uint32_t slot, VkBuffer buffer,
                     VkDeviceSize bytes);
void setLabelsAttributeBuffer(const Device& device, LabelsRenderer& renderer, uint32_t slot,
                              uint32_t channel, VkBuffer buffer, VkDeviceSize bytes);

struct LabelsDraw {
    uint32_t count = 0;                   // anchors drawn
    float sizePixels = 14.0f;             // em size
    float offsetX = 0.0f, offsetY = 0.0f; // pixels from the anchor
    Rgba color{1.0f, 1.0f, 1.0f, 1.0f};
    PointsDraw place; // the placement: view, box (3D), domain, uvScale, uvOffset (2D)
};

// Where `position` lands in a picture of `extent` (pixels, y down), as labels_vertex.glsl and
// points_place.glsl place it: 2D (x, y) through `place`'s domain, uv mapping, zoom and pan, 3D
// under the orbit camera in `place.box`. False where it is not drawn (3D: at or behind the eye).
// The host's twin of the shaders, for a text view's world anchor.
bool placeAnchor(const PointsDraw& place, VkExtent2D extent, bool threeD,
                 const std::array<float, 3>& position, float& x, float& y);

// Uploads the font when it has not been (outside a render pass), then draws over `target`
// (COLOR_ATTACHMENT_OPTIMAL, kept). The slot's buffers must be readable by vertex shaders.
void recordLabels(LabelsRenderer& renderer, VkCommandBuffer cmd, uint32_t slot, VkImageView target,
                  VkExtent2D extent, const LabelsDraw& draw);
// The same inside a render pass the caller began on a picture of `picture` (after
// recordFontUpload(renderer.font), outside it), placed in `area` of it as in a picture of that
// size and clipped to it: sets its own viewport, scissor and pipeline.
void recordLabelsInPass(LabelsRenderer& renderer, VkCommandBuffer cmd, uint32_t slot, VkRect2D area,
                        VkExtent2D picture, const LabelsDraw& draw);

// The compute path (a renderer made with LabelsDesc::compute): the same glyphs as
// recordLabelsInPass draws over `target` (a view of the picture `image` of `picture`, made with
// storage use and in GENERAL layout: text.h's recordStorageBegin; earlier storage writes made
// visible), outside a render pass. The slot's coverage buffer is made again (the slot's earlier
// work done) when the picture's extent changes.
void recordLabelsCompute(const Device& device, LabelsRenderer& renderer, VkCommandBuffer cmd,
                         uint32_t slot, VkRect2D area, VkImageView target, VkExtent2D picture,
                         const LabelsDraw& draw);

} // namespace estuary
