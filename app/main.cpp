// estuary: parse options, open a session (Vulkan + simulation backend + renderer), run headless or
// in a window, and map every failure to a documented exit code.
#include "error.h"
#include "headless.h"
#include "options.h"
#include "session.h"

#include <cstdio>
#include <cstdlib>

namespace {

int run(const estuary::Options& options) {
    using namespace estuary;
    if (!options.headless) {
        const char* display = std::getenv("DISPLAY");
        const char* wayland = std::getenv("WAYLAND_DISPLAY");
        if ((!display || !*display) && (!wayland || !*wayland))
            throw unsupported("no display (neither DISPLAY nor WAYLAND_DISPLAY is set); run with "
                              "--headless to render offscreen and write a screenshot");
        throw unsupported("the windowed demo is not available in this build; use --headless");
    }
    Session session;
    int exitCode = 0;
    try {
        openInstance(session, options, {});
        openDevice(session, VK_NULL_HANDLE, VK_FORMAT_R8G8B8A8_UNORM);
        runHeadless(session);
    } catch (...) {
        closeSession(session);
        throw;
    }
    const uint32_t messages = closeSession(session);
    if (options.validate) {
        std::printf("estuary: validation layer reported %u message(s)\n", messages);
        if (messages > 0) exitCode = int(ExitCode::Runtime);
    }
    return exitCode;
}

} // namespace

int main(int argc, char** argv) {
    const auto parsed = estuary::parseOptions(argc, argv);
    if (parsed.exitNow) {
        std::fprintf(*parsed.exitNow == 0 ? stdout : stderr, "%s\n", parsed.message.c_str());
        return *parsed.exitNow;
    }
    try {
        return run(parsed.options);
    } catch (const estuary::Error& e) {
        std::fprintf(stderr, "estuary: error: %s\n", e.what());
        return int(e.code());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "estuary: error: %s\n", e.what());
        return int(estuary::ExitCode::Runtime);
    }
}
