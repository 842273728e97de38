// Colormap tables: the names the renderer knows (their order is the row index the shader uses) and
// the loader for assets/colormaps/<name>.txt. Pure host code; the renderer uploads what it loads.
#pragma once

#include "shared_layout.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace estuary {

inline constexpr const char* kColormapNames[] = {"viridis", "magma"};
inline constexpr uint32_t kColormapCount = sizeof(kColormapNames) / sizeof(kColormapNames[0]);
inline constexpr uint32_t kColormapSize = ESTUARY_COLORMAP_SIZE;

std::optional<uint32_t> findColormap(std::string_view name);

// '#' comment lines (and blank lines), then exactly kColormapSize lines "r g b" of floats in [0,1].
// Throws estuary::Error (Runtime) as "<file>:<line>: <what is wrong>" on malformed input.
std::vector<std::array<float, 3>> loadColormapFile(const std::filesystem::path& file);

} // namespace estuary
