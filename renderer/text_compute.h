// The text renderer's compute path (text.h, TextDesc::compute), made and freed by text.cpp.
#pragma once

#include "text.h"

namespace estuary {

void createTextCompute(const Device& device, TextRenderer& renderer,
                       const std::filesystem::path& dataDir, uint32_t slotCount);
// Frees what createTextCompute made (nothing where it made nothing).
void destroyTextCompute(const Device& device, TextRenderer& renderer);

} // namespace estuary
