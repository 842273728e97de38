// Colormap tables: the built-in maps (their order is their estuary_colormap value and their row in
// the colormap atlas, kit.h), the loader for assets/colormaps/<name>.txt, and the rows made of
// them or of a user's stops or samples. Pure host code; the kit uploads what it builds.
//
// A row is kColormapSize RGBA8 texels holding sRGB-encoded colours, as the pictures are (the
// atlas is UNORM and the targets hold sRGB values). A categorical palette of n entries (n <= 256)
// holds entry i mod n at texel i, and the shaders (shaders/colormap.glsl) draw integer value v as
// entry v mod n, sampled at the texel's centre (so nearest, never blended); a continuous map is
// sampled linearly over [valueMin, valueMax].
#pragma once

#include "shared_layout.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace estuary {

// Appended only: each index is an estuary_colormap value.
inline constexpr const char* kColormapNames[] = {"viridis", "magma",    "cividis",  "inferno",
                                                 "plasma",  "turbo",    "twilight", "coolwarm",
                                                 "tab10",   "okabe_ito"};
inline constexpr uint32_t kColormapCount = sizeof(kColormapNames) / sizeof(kColormapNames[0]);
inline constexpr uint32_t kColormapSize = ESTUARY_COLORMAP_SIZE;
// Rows of the atlas: the built-in maps, then the user's (estuary_create_colormap) up to this.
inline constexpr uint32_t kColormapAtlasRows = ESTUARY_COLORMAP_ATLAS_ROWS;

std::optional<uint32_t> findColormap(std::string_view name);

struct ColormapTable {
    std::vector<std::array<float, 3>> entries; // sRGB-encoded, in [0, 1]
    bool categorical = false;
};

// '#' comment lines (and blank lines); then, for a categorical palette, a line "categorical"
// followed by 1..kColormapSize lines "r g b"; else exactly kColormapSize lines "r g b"; floats in
// [0,1]. Throws estuary::Error (Runtime) as "<file>:<line>: <what is wrong>" on malformed input.
ColormapTable loadColormapFile(const std::filesystem::path& file);
// Where built-in colormap `index` (< kColormapCount) is, under estuary's data folder.
std::filesystem::path builtinColormapFile(const std::filesystem::path& dataDir, uint32_t index);

using ColormapRow = std::array<uint8_t, kColormapSize * 4>;

// The atlas row of a table: round(c * 255), alpha 255; a categorical one repeats its entries.
ColormapRow colormapRow(const ColormapTable& table);

struct ColormapStop {
    float position = 0;                    // 0..1, increasing
    std::array<float, 4> rgba{0, 0, 0, 1}; // sRGB-encoded, 0..1
};
// Stops interpolated at kColormapSize evenly spaced positions (clamped outside the first and last
// stop), in sRGB-encoded values, or in linear light (decoded, blended, encoded) where `linear`.
// Categorical: the stops' colours in order are the palette (positions still checked). Throws
// usageError naming the stop for none, more than kColormapSize for a palette, a position outside
// 0..1 or not above the one before, a NaN or a colour outside 0..1.
ColormapRow colormapRowFromStops(std::span<const ColormapStop> stops, bool linear,
                                 bool categorical);
// `count` RGBA samples (floats 0..1, 4 per sample), resampled linearly to kColormapSize entries
// (as the stops at i/(count-1)), or, categorical, the palette itself (count <= kColormapSize).
ColormapRow colormapRowFromSamples(std::span<const float> rgba, bool linear, bool categorical);

// What the push constants' colormapIndex carries: the row, plus the palette's size times
// ESTUARY_COLORMAP_CATEGORY_STRIDE for a categorical one (shaders/colormap.glsl).
inline float colormapCode(uint32_t row, uint32_t categories) {
    return float(row) + float(categories) * float(ESTUARY_COLORMAP_CATEGORY_STRIDE);
}

} // namespace estuary
