// Sort-last drawing of a split volume (SCALING.md): each GPU ray-marches the own slices of its
// slabs into a partial picture (colour premultiplied by opacity, and opacity), and the display
// GPU composites the slabs' partial pictures front to back into the picture drawn. The march is
// the one of viewer/views/volume/volume_march.glsl (the orbit camera's rays clipped to the
// volume's box, steps of one voxel of the mip level a pixel's footprint reads, extinction opacity
// per voxel, early termination at 99%), restricted to a slab's slices; a slab samples its own
// slices only, clamped at its faces, so within half a slice of a slab boundary and where a
// coarse level would average across one the picture differs slightly from the unsplit march.
// Include only <cuda_runtime_api.h>: no Vulkan.
#pragma once

#include "cuda_simulation.h"
#include "slabs.h"

#include <array>
#include <cstdint>
#include <vector>

namespace estuary::sim {

// Everything a march needs of the view, passed to the kernels by value: the picture's size, the
// orbit camera (renderer/volume_camera.h's eye, forward and the right and up half-extents), the
// transfer function and the background (both as the volume view's push constants say).
struct MarchView {
    uint32_t width = 0, height = 0;
    float eye[3] = {}, forward[3] = {}, right[3] = {}, up[3] = {};
    float valueMin = 0, valueMax = 1;
    float opacity = 0.5f; // extinction per voxel at the colormap's end
    float lodBias = 0;
    float background[3] = {};
    // One row of the colormap atlas (renderer/colormap.h: sRGB-encoded RGBA8); categories > 0: a
    // palette of that many entries, drawn by the integer value, never blended.
    uint8_t colormap[256][4] = {};
    uint32_t categories = 0;
};

// One slab's own slices of the shown field, with their mip chain and a trilinear texture over
// them (clamped at the slab's faces). Created on the current device; destroy after the streams
// using it.
struct SlabVolume {
    ImageOutput output; // width x height x count slices, R32Float, full mip chain
    DeviceImage image;
    cudaTextureObject_t texture = 0;
    uint32_t first = 0; // the slab's first slice in the whole volume
};
SlabVolume createSlabVolume(uint32_t width, uint32_t height, uint32_t first, uint32_t count);
void destroySlabVolume(SlabVolume& volume);

// The slab's own slices (`own`: count x width x height floats, x fastest) into level 0, then the
// mip chain, on `stream`.
void writeSlabVolume(SlabVolume& volume, const float* own, cudaStream_t stream);

// The march of `volume`'s slices (in a volume of depth `depth` slices) into `partial`, one float4
// per picture pixel, row 0 at the top: premultiplied colour and opacity; (0, 0, 0, 0) where the
// ray misses the slab.
void marchSlab(const MarchView& view, const SlabVolume& volume, uint32_t depth, float4* partial,
               cudaStream_t stream);

// The partial pictures of the slabs in slice order (slab 0 nearest z = 0), each ray's taken front
// to back along its direction, over the background, into level 0 of `picture` (an RGBA16Float
// 2D image of view.width x view.height). At most kMaxMarchSlabs partials.
void compositeSlabs(const MarchView& view, const std::vector<const float4*>& partials,
                    cudaSurfaceObject_t picture, cudaStream_t stream);

} // namespace estuary::sim
