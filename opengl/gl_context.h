// The OpenGL side of the OpenGL consumer: a context (headless through EGL, or the current one a
// window made), what it can import from Vulkan (GL_EXT_memory_object(_fd), GL_EXT_semaphore(_fd),
// GL_NV_timeline_semaphore), the device check that must pass before anything is imported (the GL
// driver and device UUIDs equal Vulkan's), and a count of KHR_debug messages, the GL twin of the
// validation layer's. libepoxy resolves every GL and EGL call; the NV timeline entry points, which
// Debian's libepoxy predates, are loaded here. Knows nothing of CUDA or of simulations.
#pragma once

#include "context.h" // MoveOnly

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace estuary {

using GlUuid = std::array<uint8_t, 16>;
using GlProc = void (*)();
using GlGetProc = GlProc (*)(const char* name);

// What the current context is and can do; filled by queryGlInfo.
struct GlInfo {
    std::string vendor, renderer, version, platform; // platform: "EGL device", "GLX", ...
    bool memoryObjectFd = false;    // GL_EXT_memory_object + GL_EXT_memory_object_fd
    bool semaphoreFd = false;       // GL_EXT_semaphore + GL_EXT_semaphore_fd
    bool timelineSemaphore = false; // GL_NV_timeline_semaphore
    GlUuid driverUuid{};
    std::vector<GlUuid> deviceUuids;
    // GL_NV_timeline_semaphore, loaded when present.
    void (*createSemaphoresNV)(int count, unsigned* semaphores) = nullptr;
    void (*semaphoreParameterivNV)(unsigned semaphore, unsigned pname, const int* params) = nullptr;
};

// KHR_debug messages of type error (and the first few texts), counted like ValidationLog.
struct GlDebugLog {
    std::atomic<uint32_t> count{0};
    std::mutex mutex;
    std::vector<std::string> firstMessages;
};

struct GlContext : MoveOnly {
    void* display = nullptr; // EGLDisplay; null for a context the caller made (a GLFW window)
    void* context = nullptr; // EGLContext
    void* surface = nullptr; // EGLSurface: a 1x1 pbuffer where surfaceless contexts are missing
    GlInfo info;
    GlDebugLog* debug = nullptr; // owned; non-null when debug output was asked for
};

// A headless OpenGL 4.5 core context on the device whose GL UUIDs equal `deviceUuid` and
// `driverUuid` (Vulkan's): EGL devices are tried first (EGL_EXT_device_enumeration), then Mesa's
// surfaceless platform, then the default display. Made current on this thread. `debug`: a debug
// context whose error messages are counted. Throws unsupported() (exit 3) saying what was found
// when no display gives such a context, or none on the same device and driver.
GlContext createHeadlessGlContext(const GlUuid& deviceUuid, const GlUuid& driverUuid, bool debug);
// The context current on this thread (made by a window library): queried, checked against
// Vulkan's UUIDs like a headless one, and given a debug log when `debug`.
GlContext adoptCurrentGlContext(GlGetProc getProc, const char* platform, const GlUuid& deviceUuid,
                                const GlUuid& driverUuid, bool debug);
void destroyGlContext(GlContext& context);
uint32_t glDebugMessageCount(const GlContext& context);

// The current context's strings and capabilities; `getProc` loads the NV timeline entry points.
GlInfo queryGlInfo(GlGetProc getProc);
// Empty when the context may import Vulkan's memory: GL_EXT_memory_object_fd present and a GL
// device UUID and the driver UUID equal Vulkan's. Otherwise the reason, for unsupported().
std::string glDeviceMismatch(const GlInfo& info, const GlUuid& deviceUuid,
                             const GlUuid& driverUuid);
// "llvmpipe (LLVM 15.0.6, 256 bits), OpenGL 4.5 (Core Profile) Mesa 22.3.6, EGL device"
std::string describeGl(const GlInfo& info);

} // namespace estuary
