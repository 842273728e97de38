// The compute path's binning of annotation quads (text.h, shaders/text_tiles.comp): which quads
// reach each 16 x 16 pixel tile of the picture, in drawing order, as the uints the shader reads
// (shared_layout.h, ESTUARY_BINDING_TEXT_TILES). Pure host code: tests compare it with a per-pixel
// reference.
#pragma once

#include "text.h"

#include <span>
#include <vector>

namespace estuary {

struct TextTiles {
    std::vector<uint32_t> words; // the tiles, the clips, the quad indices
    uint32_t tileCount = 0;      // non-empty tiles: the workgroups to dispatch
    uint32_t clipBase = 0, indexBase = 0;
    // Scratch, reused frame to frame.
    std::vector<uint32_t> counts;
    std::vector<std::pair<uint32_t, uint32_t>> pairs; // (tile, quad) in drawing order
};

// Bins `quads` (each naming its clip rectangle in `clips` by the index in extra[1]'s bits) over
// a picture of `extent`: a quad is in a tile's list where its parallelogram, grown by half a pixel,
// overlaps the tile inside its clip. Quads naming no clip of `clips` are left out. Allocates
// nothing once the scratch has grown.
void binTextQuads(std::span<const TextQuad> quads, std::span<const VkRect2D> clips,
                  VkExtent2D extent, TextTiles& out);

// Whether the centre of pixel (x, y) is inside `quad` as the rasterizer and text_tiles.comp decide
// (the top-left rule on its edges). Tests' reference.
bool quadCoversPixel(const TextQuad& quad, uint32_t x, uint32_t y);

} // namespace estuary
