// Everything one run of estuary holds, wired together: Vulkan instance and device, the chosen
// simulation backend with its ring of shared field images, the renderer, one command buffer per
// slot, and the live simulation/view parameters. Opened in two steps so a window can create its
// surface between them; closed in reverse order.
#pragma once

#include "options.h"
#include "renderer.h"
#include "sim_backend.h"

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace estuary {

struct BackendChoice {
    Backend kind = Backend::Cpu;
    PhysicalDeviceInfo physical;
    int cudaDevice = -1;
    std::string reason; // why this backend: logged once
};

// auto: CUDA when a CUDA device has a Vulkan twin (same UUID), else CPU with the reason. cuda:
// throws unsupported() (exit 3) explaining why CUDA cannot run.
BackendChoice chooseBackend(const Options& options, VkInstance instance);

struct Session {
    Options options;
    // Set before openDevice: the benchmark's no-interop mode, and frame stamps for tests.
    bool hostCopy = false;
    bool stampFrames = false;
    std::filesystem::path dataDir;
    Instance instance;
    BackendChoice choice;
    Device device;
    VkCommandPool pool = VK_NULL_HANDLE;
    std::unique_ptr<SimBackend> backend;
    Renderer renderer;
    std::vector<VkCommandBuffer> commands; // one per slot
    // Not exported: the host waits on this one. The validation layer (rightly) cannot see the
    // payload of an exported semaphore, so a host wait on it would not retire the frame's command
    // buffer.
    VkSemaphore frameTimeline = VK_NULL_HANDLE;
    sim::GrayScottParams params;
    ViewParams view;
    FrameHistory history;
    VkQueryPool timestamps = VK_NULL_HANDLE; // two per slot: start and end of the draw submission
    uint64_t nextFrame = 0;                  // frame index drawFrame will draw next
    uint64_t lastDrawEndTicks = 0;           // GPU timestamp of the last collected draw's end
    uint64_t collectedFrames = 0;            // frames whose GPU times were collected: [0, this)
    std::chrono::steady_clock::time_point lastFrameStart;
};

void openInstance(Session& session, const Options& options,
                  const std::vector<const char*>& instanceExtensions);
// `surface` (optional): the device must present to it; targetFormat: what the renderer draws into.
void openDevice(Session& session, VkSurfaceKHR surface, VkFormat targetFormat);
// Waits for the GPU, then replaces the backend with one over a new grid (new shared images and
// simulation state), keeping the same kind and device. For the UI's grid-size change.
void recreateBackend(Session& session, Extent grid);

// Returns the number of validation messages seen over the whole session (0 without --validate).
uint32_t closeSession(Session& session);

// Runs `body` on an opened session and closes it whatever happens. Returns the exit code: 0, or 1
// when --validate is on and the layer reported anything (the count is printed either way).
int runSession(Session& session, const std::function<void(Session&)>& body);

// The folder holding shaders/ and assets/: the executable's own folder.
std::filesystem::path executableDir();

} // namespace estuary
