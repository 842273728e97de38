// The drawing kit: what every renderer of a viewer shares, made once with the device and destroyed
// after the last renderer. One colormap atlas (kColormapSize x kColormapAtlasRows RGBA8, a row per
// map: the built-in maps, then the user's), one linear clamp-to-edge sampler for it (and the
// glyphs' velocity images), one trilinear sampler for fields, descriptor pools the renderers take
// their sets from (and give them back to when they go), and the pipeline cache every pipeline is
// created with (pipeline_cache.h).
//
// Colormaps added after creation (addColormap) are staged in host memory at once and uploaded by
// the next command buffer that calls recordColormapUploads, with barriers and no host wait: frames
// already submitted never read the new row, frames recorded after it do. Each row is written once,
// so its staging bytes are never rewritten while a copy may read them.
#pragma once

#include "colormap.h"
#include "pipeline_cache.h"
#include "resources.h"

#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace estuary {

struct KitDesc {
    std::filesystem::path dataDir;          // holds assets/colormaps
    std::filesystem::path pipelineCacheDir; // empty: the pipeline cache is not kept on disk
    WarnFn warn;                            // the cache's warnings
};

struct ColormapInfo {
    std::string name;
    uint32_t categories = 0; // a categorical palette's entries; 0: a continuous map
};

struct Kit : MoveOnly {
    GpuImage atlas;
    VkSampler colormapSampler = VK_NULL_HANDLE; // linear, clamp to edge, level 0
    VkSampler fieldSampler = VK_NULL_HANDLE;    // trilinear, clamp to edge, all levels
    PipelineCache pipelineCache;
    std::vector<ColormapInfo> colormaps; // by row
    std::vector<uint8_t> texels;         // the atlas as uploaded (all rows; unused ones zero)
    GpuBuffer staging;                   // host-visible, the atlas's size; row r at r * row bytes
    std::vector<uint32_t> pendingRows;   // staged, not yet uploaded
    uint64_t uploadsRecorded = 0;        // recordColormapUploads calls that recorded a copy
    struct Pool {
        VkDescriptorPool handle = VK_NULL_HANDLE;
        uint32_t sets = 0;
        std::map<VkDescriptorType, uint32_t> descriptors; // what is left of each type
    };
    std::vector<Pool> pools;
    struct Grant {
        size_t pool = 0;
        uint32_t sets = 0;
        std::map<VkDescriptorType, uint32_t> descriptors;
    };
    std::map<VkDescriptorSet, Grant> grants; // by the first set of each allocation
    WarnFn warn;
};

// Loads the built-in colormaps from the data folder and uploads the atlas with a blocking
// submission on `pool` (start-up); reads the pipeline cache. Throws a runtime error naming a
// missing or malformed colormap file.
Kit createKit(const Device& device, VkCommandPool pool, const KitDesc& desc);
// Saves the pipeline cache (a warning where it cannot), then destroys everything. After every
// renderer made with the kit, with nothing in flight.
void destroyKit(const Device& device, Kit& kit);

// A new row (the returned index) holding `row`; a usage error once the atlas is full.
uint32_t addColormap(Kit& kit, const std::string& name, const ColormapRow& row,
                     uint32_t categories);
// Records the upload of the rows staged since the last call (none: nothing recorded), outside a
// render pass, before the draws of the command buffer that use them.
void recordColormapUploads(Kit& kit, VkCommandBuffer cmd);
// The push constants' colormapIndex of row `row`; a runtime error naming `what` for a row not in
// use.
float colormapCodeOf(const Kit& kit, uint32_t row, const char* what);

// `count` sets of `layout` (whose bindings are `bindings`) from the kit's pools, a new pool made
// when none has room.
std::vector<VkDescriptorSet> allocateKitSets(const Device& device, Kit& kit,
                                             VkDescriptorSetLayout layout,
                                             std::span<const VkDescriptorSetLayoutBinding> bindings,
                                             uint32_t count);
// Gives back sets allocateKitSets returned (all of one call); empty: nothing.
void freeKitSets(const Device& device, Kit& kit, std::vector<VkDescriptorSet>& sets);

} // namespace estuary
