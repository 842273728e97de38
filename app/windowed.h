// The desktop demo: a GLFW window with a swapchain, the same frame function as headless runs, and a
// Dear ImGui overlay. Returns the exit code.
#pragma once

#include "options.h"

namespace estuary {

int runWindowed(const Options& options);

} // namespace estuary
