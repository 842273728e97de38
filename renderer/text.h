// The text renderer: draws an AnnotationBatch (annotation.h: rectangles, colormap ramps,
// antialiased lines, texts) over a picture after its views, in the frame's command buffer. Each
// element becomes a quad the CPU writes into the slot's host-visible buffer (TextQuad, read by
// shaders/text.vert); text.frag fills it: glyphs from the font's signed-distance-field atlas
// (font_atlas.h) with one-pixel antialiasing at any size, ramps from the kit's colormap atlas. The
// The compute draw path (TextDesc::compute) draws the same quads without the rasterizer where the
// picture has storage use: binned into screen tiles on the CPU (text_tiles.h), then one dispatch,
// a workgroup a tile, blending each pixel's quads in order (shaders/text_tiles.comp).
// The font image (FontImage, shared with the labels renderer, labels.h) is uploaded by the first
// command buffer that draws, through recordUploadForSampling: no host wait.
#pragma once

#include "annotation.h"
#include "font_atlas.h"
#include "kit.h"
#include "resources.h"

#include <array>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

namespace estuary {

// The font's atlas on the GPU: R8, sampled linearly (the kit's colormap sampler), uploaded from
// `staging` by the first recordFontUpload.
struct FontImage : MoveOnly {
    std::shared_ptr<const FontAtlas> atlas;
    GpuImage image;
    GpuBuffer staging;
    bool uploaded = false;
};
// The atlas of `fontFile` (empty: the data folder's default font) staged for upload. Throws a
// runtime error naming a missing or unreadable font file.
FontImage createFontImage(const Device& device, const std::filesystem::path& dataDir,
                          const std::filesystem::path& fontFile);
void destroyFontImage(const Device& device, FontImage& font);
// Records the upload once (outside a render pass); later calls record nothing.
void recordFontUpload(FontImage& font, VkCommandBuffer cmd);

// One quad as text.vert reads it (std430, 80 bytes): corners origin + s * axisU + t * axisV for
// s, t in {0, 1}, local coordinates interpolated from local.xy to local.zw, and params.x its kind
// (ESTUARY_TEXT_*: rect, ramp, line, glyph). extra[1]: the compute path's clip index (uint bits);
// extra[0] unused.
struct TextQuad {
    float origin[2];
    float axisU[2];
    float axisV[2];
    float extra[2];
    float local[4];
    float colour[4];
    float params[4];
};
static_assert(sizeof(TextQuad) == 80, "TextQuad must match text.vert's std430 struct");

// The batch's quads in drawing order (rects, ramps, lines, texts), for `font` and the kit's
// colormaps (a ramp naming a row not in use is left out), into `out` (cleared first); `glyphs` is
// scratch. Pure: tests read it.
void buildTextQuads(const FontAtlas& font, const Kit& kit, const AnnotationBatch& batch,
                    std::vector<TextQuad>& out, std::vector<PlacedGlyph>& glyphs);

struct TextDesc {
    Kit* kit = nullptr; // required, outliving the renderer
    VkFormat targetFormat = VK_FORMAT_R8G8B8A8_UNORM;
    std::filesystem::path dataDir;  // holds shaders/ and assets/fonts
    std::filesystem::path fontFile; // empty: assets/fonts/DejaVuSans.ttf
    uint32_t slotCount = 1;
    uint32_t quadCapacity = 16384; // quads a slot draws at most (a glyph, a line, ... each)
    bool compute = false;          // also make the compute path (recordAnnotationsCompute)
};

struct TextTiles;

struct TextRenderer : MoveOnly {
    Kit* kit = nullptr;
    FontImage font;
    VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
    VkPipelineLayout pipelineLayout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
    std::vector<VkDescriptorSet> slotSets; // from the kit's pools
    std::vector<GpuBuffer> quads;          // per slot, host-visible, persistently mapped
    uint32_t quadCapacity = 0;
    std::vector<TextQuad> scratch;         // the batch's quads, reused frame to frame
    std::vector<PlacedGlyph> glyphScratch; // one text's glyphs, reused
    uint64_t droppedQuads = 0; // quads past quadCapacity, left out (counted, never an error)
    // TextDesc::compute: the tile pass's pipeline and per slot its set, its tile lists
    // (host-visible, grown when a frame needs more) and the storage target its set names.
    VkDescriptorSetLayout computeSetLayout = VK_NULL_HANDLE;
    VkPipelineLayout computeLayout = VK_NULL_HANDLE;
    VkPipeline computePipeline = VK_NULL_HANDLE;
    std::vector<VkDescriptorSet> computeSets;
    std::vector<GpuBuffer> tiles;
    std::vector<VkImageView> computeTargets;
    std::shared_ptr<TextTiles> binning; // scratch
    std::vector<VkRect2D> clips;        // scratch
};

// Throws a runtime error naming a missing shader or font file.
TextRenderer createTextRenderer(const Device& device, const TextDesc& desc);
void destroyTextRenderer(const Device& device, TextRenderer& renderer);

// A batch and the rectangle of the picture it is clipped to (a panel's, in the picture's pixels).
struct AnnotationPanel {
    const AnnotationBatch* batch = nullptr;
    VkRect2D area{};
};

// Records each panel's batch over `target` (COLOR_ATTACHMENT_OPTIMAL, kept; `extent` the whole
// picture's) in one pass, each clipped to its area and to its batch's clip. Batch coordinates
// are the picture's pixels (origin at its top-left), not the area's. Writes the slot's quad
// buffer from its start, so call it once per slot and frame (all panels in one call): the slot
// must be one no submitted, unfinished work still reads (the frame's host-ring entry), and a
// command buffer replayed later draws the quads written when it was recorded. Outside a render
// pass. Quads past quadCapacity are left out (droppedQuads counts them). Allocates nothing once
// the scratch has grown.
void recordAnnotations(TextRenderer& renderer, VkCommandBuffer cmd, uint32_t slot,
                       VkImageView target, VkExtent2D extent,
                       std::span<const AnnotationPanel> panels);
// A render pass over `target` (COLOR_ATTACHMENT_OPTIMAL, its pixels kept) for the InPass calls
// below and recordLabelsInPass (labels.h); the caller ends it (vkCmdEndRendering).
void beginAnnotationPass(VkCommandBuffer cmd, VkImageView target, VkExtent2D extent);
// The same inside a render pass the caller began on a picture of `extent` (after
// recordFontUpload, outside it): sets its own viewport, scissors and pipeline.
void recordAnnotationsInPass(TextRenderer& renderer, VkCommandBuffer cmd, uint32_t slot,
                             VkExtent2D extent, std::span<const AnnotationPanel> panels);
// One batch: the call above with one panel.
void recordAnnotations(TextRenderer& renderer, VkCommandBuffer cmd, uint32_t slot,
                       VkImageView target, VkExtent2D extent, const AnnotationBatch& batch,
                       VkRect2D area);

// The compute path (a renderer made with TextDesc::compute): each panel's batch over `target` (a
// view of a picture of `extent` made with storage use, in GENERAL layout: recordStorageBegin), as
// recordAnnotations draws it, in one dispatch. The same slot rules; the slot's tile buffer grows
// (the slot's earlier work done) where the frame's quads reach more tiles than it holds.
void recordAnnotationsCompute(const Device& device, TextRenderer& renderer, VkCommandBuffer cmd,
                              uint32_t slot, VkImageView target, VkExtent2D extent,
                              std::span<const AnnotationPanel> panels);
// The picture `image` from COLOR_ATTACHMENT_OPTIMAL (after colour, transfer or compute writes) to
// GENERAL for the compute path's storage reads and writes, and back (for colour attachment use and
// what reads it after); between two compute passes over it, recordStorageBetween.
void recordStorageBegin(VkCommandBuffer cmd, VkImage image);
void recordStorageBetween(VkCommandBuffer cmd);
void recordStorageEnd(VkCommandBuffer cmd, VkImage image);

// The scissor `area` and `clip` (x0, y0, x1, y1; all zero: none) leave of a picture of `extent`.
VkRect2D clipRect(VkExtent2D extent, VkRect2D area, const std::array<float, 4>& clip);

// Both draw paths of the annotation layer: `panel`'s quads built into r.scratch, as many as fit
// in the slot's buffer after the `used` already there (the rest counted in r.droppedQuads), and
// its scissor. 0: the panel draws nothing.
uint32_t buildPanelQuads(TextRenderer& r, VkExtent2D extent, const AnnotationPanel& panel,
                         uint32_t used, VkRect2D& scissor);

} // namespace estuary
