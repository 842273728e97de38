// RGBA8 pixels as PNG (screenshots, golden images): encoded in memory, then written atomically
// (output_file.h), so a failed or interrupted write never leaves a truncated image behind.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace estuary {

// The PNG file's bytes. Throws estuary::Error (Runtime) if encoding fails.
std::string encodePng(uint32_t width, uint32_t height, const uint8_t* rgba);

// RGBA8 pixels as a baseline JPEG (quality 1..100; alpha ignored), appended to `out` (the server's
// fallback frames). Throws estuary::Error (Runtime) if encoding fails.
void appendJpeg(std::string& out, uint32_t width, uint32_t height, const uint8_t* rgba,
                int quality);

// encodePng + writeFileAtomically: creates missing parent folders; throws estuary::Error (Runtime)
// naming the path and the system's reason on failure.
void writePng(const std::filesystem::path& path, uint32_t width, uint32_t height,
              const uint8_t* rgba);

} // namespace estuary
