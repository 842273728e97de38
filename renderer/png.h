// Writing RGBA8 pixels as a PNG file (screenshots, golden images). Creates missing parent folders;
// throws estuary::Error (Runtime) naming the path and the system's reason on failure.
#pragma once

#include <cstdint>
#include <filesystem>

namespace estuary {

void writePng(const std::filesystem::path& path, uint32_t width, uint32_t height,
              const uint8_t* rgba);

} // namespace estuary
