// The desktop demo with the OpenGL consumer (--consumer opengl without --headless): a GLFW window
// with an OpenGL 4.5 core context, into whose default framebuffer the session's frames are drawn
// (gl_frames.h); Vulkan still allocates and the simulation still writes. No Dear ImGui overlay
// (that is the Vulkan window's); keys: Esc/Q close, V next view, C next colormap, R reset the
// simulation, Home reset the view; the wheel zooms, a left drag pans. --frames and --screenshot
// work as in the Vulkan window.
#pragma once

#include "options.h"
#include "output_file.h"

#include <optional>

namespace estuary {

int runGlWindowed(const Options& options, std::optional<OutputFile>& screenshot);

} // namespace estuary
