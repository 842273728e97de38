#include "windowed.h"
#include "error.h"

#include <cstdlib>

namespace estuary {

int runWindowed(const Options&) {
    const char* display = std::getenv("DISPLAY");
    const char* wayland = std::getenv("WAYLAND_DISPLAY");
    if ((!display || !*display) && (!wayland || !*wayland))
        throw unsupported("no display (neither DISPLAY nor WAYLAND_DISPLAY is set); run with "
                          "--headless to render offscreen and write a screenshot");
    throw unsupported("the windowed demo is not available in this build; use --headless");
}

} // namespace estuary
