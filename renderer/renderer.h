// Draws a field image (any float format the device filters linearly, with a mip chain, in
// SHADER_READ_ONLY_OPTIMAL) into a colour target with dynamic rendering: channel 0 or the length of
// channels 0-1 through a colormap, or channels 0-2 as colour; or a 3D field ray-marched through a
// transfer function or cut by a slice (RendererDesc::volume). Points over it are points.h's. The
// caller owns the field images (one per slot, i.e. per frame in flight) and the targets; the
// renderer owns its pipelines and set layouts, and takes the colormap atlas, samplers, descriptor
// sets and pipeline cache from the kit (kit.h) its desc names. Knows nothing of CUDA or of
// simulations. Per-frame calls allocate nothing and never wait.
#pragma once

#include "kit.h"
#include "resources.h"
#include "shared_layout.h"

#include <array>
#include <filesystem>
#include <string>
#include <vector>

namespace estuary {

struct ViewParams {
    float zoom = 1.0f;              // 1 = the whole field fits the target
    float panX = 0.0f, panY = 0.0f; // field-normalised: the point (0.5+panX, 0.5+panY) is centred
    float mipBias = 0.0f;           // added to the level the hardware picks
    uint32_t colormap = 0;          // the kit's colormap row (kColormapNames, then the user's)
    float valueMin = 0.0f, valueMax = 1.0f; // mapped to the colormap's first and last entries
    std::array<float, 3> background{ESTUARY_BACKGROUND_COLOR}; // outside the field
    // Volumes (renderers made with volume): the orbit camera (volume_camera.h; radians, zoom
    // above brings it closer), the transfer function's extinction per voxel at the colormap's
    // end, and the slice the slice view shows (axis 0 = x, 1 = y, 2 = z; position 0..1).
    float yaw = kDefaultYaw, pitch = kDefaultPitch;
    float opacity = 0.5f;
    uint32_t sliceAxis = 2;
    float slicePosition = 0.5f;
    static constexpr float kDefaultYaw = 0.61086524f, kDefaultPitch = 0.43633231f; // 35°, 25°
    bool operator==(const ViewParams&) const = default;
};

// How texels become colours; the fragment shader's specialization constant (shared_layout.h).
enum class FieldShading : uint32_t {
    Colormap = ESTUARY_SHADING_COLORMAP,                    // channel 0 through the colormap
    ColormapMagnitude = ESTUARY_SHADING_COLORMAP_MAGNITUDE, // |(channel 0, channel 1)|
    Rgb = ESTUARY_SHADING_RGB,                              // channels 0-2, clamped to [0, 1]
};

struct RendererDesc {
    Kit* kit = nullptr; // required: the viewer's drawing kit, outliving the renderer
    VkFormat targetFormat = VK_FORMAT_R8G8B8A8_UNORM;
    VkFormat fieldFormat = VK_FORMAT_R32_SFLOAT;
    FieldShading shading = FieldShading::Colormap;
    // The fragment shader, by source name in shaders/ (loaded as shaders/<name>.spv from dataDir).
    // Any shader that includes field_common.glsl fits: field.frag (default), field_relief.frag.
    std::string fragmentShader = "field.frag";
    std::filesystem::path dataDir; // holds shaders/ and assets/
    uint32_t slotCount = 1;
    // The field is a 3D image (a sampler3D; setFieldImage gets its depth) drawn by a volume shader
    // (volume.frag ray-marches it, volume_slice.frag shows a slice) with VolumePushConstants.
    bool volume = false;
    // Draw with the fragment shader's compute twin (shaders/<fragmentShader>.compute.spv, see
    // shaders/draw_main.glsl) into the renderer's own RGBA8 storage image of setComputeExtent's
    // size, then copy it into the target (a blit where the target's format is not RGBA8, e.g. a
    // BGRA swapchain image), instead of rasterizing the fragment shader; particles are then drawn
    // over it. The target needs TRANSFER_DST usage. Same picture as the raster path (the shaders
    // share every line but main), several times faster on GPUs with few graphics units.
    bool compute = false;
};

struct Renderer : MoveOnly {
    VkFormat targetFormat = VK_FORMAT_UNDEFINED;
    VkFormat fieldFormat = VK_FORMAT_UNDEFINED;
    VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
    VkPipelineLayout pipelineLayout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
    Kit* kit = nullptr;
    std::vector<VkDescriptorSet> slotSets; // one per slot, from the kit's pools
    std::vector<VkExtent2D> fieldExtents;  // per slot; {0,0} until setFieldImage
    std::vector<uint32_t> fieldDepths;     // per slot; 1 for 2D fields
    bool volume = false;
    // RendererDesc::compute: its pipeline, layout and per-slot sets (field, colormaps, storage
    // image), and the storage image it draws into.
    VkDescriptorSetLayout computeSetLayout = VK_NULL_HANDLE;
    VkPipelineLayout computeLayout = VK_NULL_HANDLE;
    VkPipeline computePipeline = VK_NULL_HANDLE;
    std::vector<VkDescriptorSet> computeSets;
    GpuImage computeTarget;
};

// Throws unsupported() when
// fieldFormat cannot be sampled with linear filtering or targetFormat cannot be a colour
// attachment, and a runtime error naming the file when a shader is missing or malformed.
Renderer createRenderer(const Device& device, const RendererDesc& desc);
void destroyRenderer(const Device& device, Renderer& renderer);

// Points the slot's descriptor at a field view (a 3D view of `fieldDepth` for volume renderers).
// Only while no submitted work using the slot is still in flight.
void setFieldImage(const Device& device, Renderer& renderer, uint32_t slot, VkImageView view,
                   VkExtent2D fieldExtent, uint32_t fieldDepth = 1);

// Renderers made with compute: (re)makes the storage image the compute draw writes, of the
// targets' size. Before the first draw and whenever the target size changes, with no submitted work
// using the renderer in flight.
void setComputeExtent(const Device& device, Renderer& renderer, VkExtent2D extent);

// Records a dynamic-rendering pass that clears `target` to the background colour and draws the
// slot's field letterboxed into it. `target` must be in COLOR_ATTACHMENT_OPTIMAL (caller's
// barrier), the slot's field in SHADER_READ_ONLY_OPTIMAL. Sets viewport and scissor.
// Renderers made with compute draw in a compute pass instead and copy (or blit) the result into
// `targetImage` (needed then), leaving it in COLOR_ATTACHMENT_OPTIMAL too.
void recordDraw(const Renderer& renderer, VkCommandBuffer cmd, uint32_t slot, VkImageView target,
                VkExtent2D targetExtent, const ViewParams& view,
                VkImage targetImage = VK_NULL_HANDLE);

} // namespace estuary
