// Points pulled from a storage buffer of vec4 per point (no vertex input), drawn as point
// primitives blended additively over the picture: in 2D a vec4 (x, y, vx, vy) placed with the
// field's letterboxed view mapping over a domain and coloured by its speed, in 3D a vec4
// (x, y, z, s) under the volume's orbit camera (volume_camera.h) coloured by s. The caller owns
// the buffers (one per slot) and the target; the renderer owns its pipeline, descriptors and
// colormap image. Per-frame calls allocate nothing and never wait.
// Two ways to draw the same picture: rasterized point primitives, or (PointsDesc::splat) a compute
// splat, each point's colour added with atomics into a buffer of the target's size, then one
// full-screen pass adding that buffer onto the target (viewer/views/points/points_splat.glsl). The
// splat does not go through the few blending units a datacenter GPU has; both round each point's
// colour to the 8-bit step additive blending rounds it to, so on an 8-bit target they differ only
// where the two disagree on a pixel centre lying exactly on a point's edge. PointsDesc::markers
// makes the same renderer draw markers: shapes sized, coloured and turned per element
// (viewer/views/markers/markers_vertex.glsl, markers.frag), placed as points are.
#pragma once

#include "attributes.h"
#include "pick.h"
#include "renderer.h"
#include "resources.h"

#include <array>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace estuary {

// How the points' splat adds a point to a pixel (points_splat.glsl); every variant draws the same
// picture. Packed: one 64-bit atomic a pixel (PointsDesc::packedSplat, where the device has them;
// else three 32-bit ones). Merged: packed, and points of one pixel summed first across a subgroup
// where neighbours land on the same pixel (needs subgroup vote and relative shuffles in compute;
// else Packed). Saturated: one uint a pixel, each channel saturating at 255 by compare-and-swap:
// half the bytes of the packed buffer, and no atomic for a pixel already full.
enum class SplatVariant : uint32_t { Packed, Merged, Saturated };
// The variant named `name` ("packed", "merged", "saturated"); nullopt for any other.
std::optional<SplatVariant> splatVariantNamed(std::string_view name);
const char* splatVariantName(SplatVariant variant);

struct PointsDesc {
    Kit* kit = nullptr; // required: the viewer's drawing kit (kit.h), outliving the renderer
    VkFormat targetFormat = VK_FORMAT_R8G8B8A8_UNORM;
    std::filesystem::path dataDir; // holds shaders/ and assets/
    uint32_t slotCount = 1;
    bool threeD = false;
    // Markers instead of points: 32 bytes an element (vec4 position and value, vec4 direction and
    // size), each a shape on a quad blended over the picture (markers.frag).
    bool markers = false;
    // Lines instead: 16-byte vertices (vec4 position and value), segments or a strip, directly or
    // through a buffer of uint indices (setLinesIndices), drawn as antialiased quads.
    bool lines = false;
    // Glyphs instead: markers sampled on a grid from a 2D velocity image (or with threeD a 3D one
    // under the orbit camera; setGlyphImage), one every PointsDraw::glyphSpacing cells.
    bool glyphs = false;
    // Draw by compute splat (then setPointsExtent before recording): points, and markers, glyphs or
    // segments (each pixel's topmost, viewer/views/markers/markers_splat.glsl,
    // lines/lines_splat.glsl) up to markerCapacity of them.
    bool splat = false;
    uint32_t markerCapacity = 0;
    bool packedSplat = true; // one 64-bit atomic a pixel where the device has them (tests: false)
    SplatVariant splatVariant = SplatVariant::Packed; // points only
    // Where each channel of an element lies (renderer/attributes.h); none: the kind's preset
    // layout above. Lines read indices through the index channel (its own buffer,
    // setLinesIndices). Glyphs read their image, not these.
    std::optional<AttributeChannels> attributes;
};

struct PointsRenderer : MoveOnly {
    bool threeD = false;
    bool markers = false;
    bool lines = false;
    bool glyphs = false;
    AttributeChannels channels{};             // what the shaders read (specialized into them)
    AttributeSpecialization specialization;   // the pipelines' constants of `channels`
    std::vector<AttributeBuffer> mainBuffers; // per slot
    std::vector<std::array<AttributeBuffer, kAttributeChannels>> ownBuffers; // per slot
    std::vector<VkDeviceSize> indexBytes; // lines: per slot; 0: no index buffer
    std::vector<VkExtent3D> glyphExtents; // glyphs: per slot, the velocity image's
    VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
    VkPipelineLayout pipelineLayout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
    Kit* kit = nullptr;
    std::vector<VkDescriptorSet> slotSets; // from the kit's pools
    std::vector<VkDeviceSize> bytes;       // per slot; 0 until setPointsBuffer
    float maxPointSize = 1.0f;             // the device's largest point (largePoints)
    // PointsDesc::splat: the splat's compute pipeline, the resolve's graphics pipeline and the
    // buffer both use (per pixel of splatExtent one packed uint64 where the device has 64-bit
    // atomics, else three uints; one uint for SplatVariant::Saturated), shared by the slots.
    VkPipeline splatPipeline = VK_NULL_HANDLE;
    VkPipeline resolvePipeline = VK_NULL_HANDLE;
    VkPipeline resolveComputePipeline = VK_NULL_HANDLE;
    VkImageView storageTarget = VK_NULL_HANDLE; // setPointsExtent's: resolve by compute
    bool packedSplat = false;
    SplatVariant splatVariant = SplatVariant::Packed; // the one made (after any fallback)
    uint32_t splatFormat = 0; // points_splat_sum.glsl's kFormat: three uints, packed, saturated
    // The points' compute resolve zeroes the sums it reads; the buffer is cleared by a fill on
    // the first splat after setPointsExtent, and on every splat resolved by the raster pass.
    mutable bool splatNeedsClear = true;
    GpuBuffer splatBuffer;
    VkExtent2D splatExtent{0, 0};
    GpuBuffer markerColours; // markers' splat: RGBA8 per marker, for the resolve
    uint32_t markerCapacity = 0;
    PickPasses pick; // preparePointsPick makes its pipeline
};

// Throws a runtime error naming a missing or malformed shader file.
PointsRenderer createPointsRenderer(const Device& device, const PointsDesc& desc);
void destroyPointsRenderer(const Device& device, PointsRenderer& renderer);

// Points the slot's main buffer (the channels not in their own) at `buffer`, `bytes` long. Only
// while no submitted work using the slot is in flight.
void setPointsBuffer(const Device& device, PointsRenderer& renderer, uint32_t slot, VkBuffer buffer,
                     VkDeviceSize bytes);
// Points the slot's channel `channel` (one with AttributeChannel::ownBuffer) at `buffer`.
void setAttributeBuffer(const Device& device, PointsRenderer& renderer, uint32_t slot,
                        uint32_t channel, VkBuffer buffer, VkDeviceSize bytes);

// Lines: points the slot's indices at `buffer` (`bytes` long: bytes / 4 indices), or with
// VK_NULL_HANDLE drops them (segments then take consecutive vertices). Only while no submitted
// work using the slot is in flight.
void setLinesIndices(const Device& device, PointsRenderer& renderer, uint32_t slot, VkBuffer buffer,
                     VkDeviceSize bytes);

// Glyphs: the slot's velocity image (SHADER_READ_ONLY_OPTIMAL when drawn), of `extent` cells (a 3D
// image with PointsDesc::threeD, else depth 1).
void setGlyphImage(const Device& device, PointsRenderer& renderer, uint32_t slot, VkImageView view,
                   VkExtent3D extent);
// The glyphs drawn from an image of `image` cells, one every `spacing` cells along each side.
uint32_t glyphCount(VkExtent3D image, uint32_t spacing);

// Renderers made with splat: (re)makes the splat buffer for targets of `extent` and points every
// slot at it. `storageTarget`: the target's view when the target was made with storage use (an
// OffscreenTarget is): the resolve then adds in place by compute, else by a full-screen raster
// pass. Only while no submitted work using the renderer is in flight.
void setPointsExtent(const Device& device, PointsRenderer& renderer, VkExtent2D extent,
                     VkImageView storageTarget = VK_NULL_HANDLE);

struct PointsDraw {
    uint32_t count = 0;
    float size = 1.0f;      // pixels, clamped to what the device draws
    float intensity = 0.0f; // each point's share of its colour; 0: pointIntensity()
    uint32_t colormap = 0;
    float valueMin = 0.0f, valueMax = 1.0f;
    // 2D: the domain's size (the letterbox's aspect) and where a position lands in it: uv =
    // position * uvScale + uvOffset; the view's zoom and pan as for fields.
    VkExtent2D domain{1, 1};
    std::array<float, 2> uvScale{1.0f, 1.0f}, uvOffset{0.0f, 0.0f};
    // 3D: the box framed (min x, y, z, max x, y, z).
    std::array<float, 6> box{-0.5f, -0.5f, -0.5f, 0.5f, 0.5f, 0.5f};
    ViewParams view; // zoom, pan (2D), yaw, pitch (3D)
    // Markers: the shape (ESTUARY_MARKER_*), flags (ESTUARY_MARKER_FLAG_*) and outline width in
    // pixels; `size` is then the marker's size, not clamped to the device's point sizes. Lines:
    // markerShape is the topology (ESTUARY_LINE_SEGMENTS or _STRIP), markerFlags may hold
    // ESTUARY_LINE_FLAG_RGBA (INDEXED is the renderer's to set), lineWidth the width, and count
    // the vertices (or indices) the segments use.
    uint32_t markerShape = 0;
    uint32_t markerFlags = 0;
    float lineWidth = 1.5f;
    uint32_t glyphSpacing = 8; // glyphs: cells between them
    // Draw over a cleared target: the target's content is discarded and it is cleared to
    // view.background by the draw itself (the points' compute resolve writes every pixel: no
    // clear pass, no layout change of the old content), else by the draw's render pass.
    bool clearTarget = false;
};

// Records a dynamic-rendering pass over `target` (COLOR_ATTACHMENT_OPTIMAL, kept) drawing
// draw.count points of the slot's buffer; the buffer must be readable by vertex shaders (compute
// shaders for the splat, which clears its buffer, splats and resolves: outside a render pass, so
// call it between passes, with `extent` the one setPointsExtent was given, and `targetImage` the
// image of its storage target, whose resolve moves it to GENERAL and back).
void recordPoints(const PointsRenderer& renderer, VkCommandBuffer cmd, uint32_t slot,
                  VkImageView target, VkExtent2D extent, const PointsDraw& draw,
                  VkImage targetImage = VK_NULL_HANDLE);

// Picking (renderer/pick.h): makes the pick's pipeline, once (not per frame: it compiles).
void preparePointsPick(const Device& device, PointsRenderer& renderer);
// Records the pick at `query` of what recordPoints draws of `draw` in the slot (the same checks;
// the buffers readable by compute shaders; outside a render pass): the element drawn there or
// nearest within query.radius, its PickState copied into `destination` at `offset`. Needs
// preparePointsPick.
void recordPointsPick(const PointsRenderer& renderer, VkCommandBuffer cmd, uint32_t slot,
                      VkExtent2D extent, const PointsDraw& draw, const PickQuery& query,
                      VkBuffer destination, VkDeviceSize offset);

// Additive intensity of one point: dense clouds would saturate to white, so the brightness of one
// point falls as the points' total area outgrows the target; never so low that an 8-bit target
// rounds a lone point away.
float pointIntensity(VkExtent2D target, uint32_t count, float size);

} // namespace estuary
