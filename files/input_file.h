// Files estuary reads from its data folder (shaders, colormaps, GLSL sources): checked to be
// regular files before they are opened, so that a folder is not read as gigabytes of "shader"
// (which reported itself as out of host memory) and a FIFO does not block the start for ever.
#pragma once

#include <filesystem>
#include <string>

namespace estuary {

// Throws estuary::Error (Runtime) naming `what`, the path and what it is instead ("a folder",
// "a FIFO", "missing"), unless `path` is a regular file (or a link to one).
void requireRegularFile(const std::filesystem::path& path, const std::string& what);

} // namespace estuary
