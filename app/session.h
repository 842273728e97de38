// Everything one run of estuary holds, wired together: Vulkan instance and device, the simulation
// (its definition and live parameter values), the chosen backend with its ring of output slots,
// the renderer, one command buffer per slot, and the view. Opened in two steps so a window can
// create its surface between them; closed in reverse order.
#pragma once

#include "estuary/interop/vulkan_device.h"
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

struct GlFrames; // gl_frames.h: the OpenGL consumer

struct BackendChoice {
    Backend kind = Backend::Cpu;
    PhysicalDeviceInfo physical;
    int cudaDevice = -1;
    std::string reason; // why this backend: logged once
};

// auto: CUDA on the first CUDA device, in CUDA order, whose Vulkan twin (same UUID) interop can
// use and which can run (its twin has interop's extensions, CUDA opens a context on it), else CPU
// with the reason. cuda: throws unsupported() (exit 3) explaining why CUDA cannot run.
BackendChoice chooseBackend(const Options& options, VkInstance instance);

struct Session {
    Options options;
    // The simulation and its live parameters: set by openInstance from the options, changed by
    // switchSimulation (the window's selector). Tests may point it at their own definition before
    // openDevice.
    const sim::SimDefinition* simulation = nullptr;
    sim::ParamValues params;
    int stepsPerFrame = 0;
    uint32_t viewIndex = 0;    // into simulation->views: what the picture shows
    bool showParticles = true; // draw the simulation's particles (where it has them) over the view
    uint32_t particles = 0;    // the backend's particle count (0 for simulations without them)
    // Set before openDevice: the benchmark's no-interop mode, and frame stamps for tests.
    bool hostCopy = false;
    bool stampFrames = false;
    std::filesystem::path dataDir;
    Instance instance;
    BackendChoice choice;
    Device device;
    interop::Context interop; // `device` as interop sees it (made with it by openDevice)
    VkCommandPool pool = VK_NULL_HANDLE;
    std::unique_ptr<SimBackend> backend;
    VkFormat targetFormat = VK_FORMAT_UNDEFINED; // what the renderer draws into
    Renderer renderer;
    std::vector<VkCommandBuffer> commands; // one per host-ring entry (SimBackend::hostRingSize)
    // What each command buffer holds, for targets that allow submitting it again
    // (FrameTarget::repeatKey): cleared whenever the ring or the renderer is made anew.
    struct RecordedDraw {
        bool valid = false;
        uint32_t slot = 0;
        bool waitsOnSimulation = false;
        uint64_t targetKey = 0;
        ViewParams view;
        bool operator==(const RecordedDraw&) const = default;
    };
    std::vector<RecordedDraw> recorded;
    // Not exported: the host waits on this one. The validation layer (rightly) cannot see the
    // payload of an exported semaphore, so a host wait on it would not retire the frame's command
    // buffer.
    VkSemaphore frameTimeline = VK_NULL_HANDLE;
    ViewParams view;
    // The OpenGL consumer (--consumer opengl), which draws instead of `renderer`; null otherwise.
    std::shared_ptr<GlFrames> gl;
    GlHandoff glHandoff = GlHandoff::Host; // as resolved by openGlConsumer
    // Set before openDevice by a window with an OpenGL context: loads GL entry points from it.
    // Null: the OpenGL consumer makes its own headless context.
    void (*(*glWindowProc)(const char*))() = nullptr;
    uint32_t glMessages = 0; // OpenGL debug-output errors, counted at close
    FrameHistory history;
    VkQueryPool timestamps = VK_NULL_HANDLE; // two per host-ring entry: the draw's start and end
    uint64_t nextFrame = 0;                  // frame index drawFrame will draw next
    uint64_t lastDrawEndTicks = 0;           // GPU timestamp of the last collected draw's end
    uint64_t collectedFrames = 0;            // frames whose GPU times were collected: [0, this)
    std::chrono::steady_clock::time_point lastFrameStart;
    uint64_t slowestFrameNs = 0; // longest interval between frame starts so far
    // Released by closeSession once the GPU has settled (never while it may use them): what a
    // run made beside the session (offscreen targets, readback buffers), newest first.
    std::vector<std::function<void(const Device&)>> releaseAtClose;
    VkSemaphore stallSemaphore = VK_NULL_HANDLE; // ESTUARY_FAULT=vulkan-stall: never signalled
    // settleGpuWork found the GPU stuck: a later call (the window's, then closeSession's) does not
    // wait all over again.
    bool gpuStuck = false;
};

// How long a host wait for a frame may last before it counts as a hang: ESTUARY_WAIT_TIMEOUT_S
// where set, else 20 s or 50 times the slowest frame so far, whichever is longer.
uint64_t frameWaitTimeoutNs(const Session& session);

void openInstance(Session& session, const Options& options,
                  const std::vector<const char*>& instanceExtensions);
// `surface` (optional): the device must present to it; targetFormat: what the renderer draws into.
void openDevice(Session& session, VkSurfaceKHR surface, VkFormat targetFormat);
// Waits for the GPU, then replaces the backend with one over a new grid (new shared images and
// simulation state), keeping the same kind and device. For the UI's grid-size change.
void recreateBackend(Session& session, Extent grid);
// The same with another number of frames in flight (the command ring follows).
void recreateBackend(Session& session, Extent grid, uint32_t framesInFlight);
// Makes `def` the session's simulation: its initial parameters (with the --param settings when it
// is the simulation the options named), its steps per frame and value range. Before openDevice
// this only sets the choice; afterwards it waits for the GPU and rebuilds backend and renderer.
void switchSimulation(Session& session, const sim::SimDefinition& def);
// Shows view `index` of the simulation. Before openDevice this only sets the choice; afterwards it
// waits for the GPU and rebuilds the renderer (the backend and its state stay).
void switchView(Session& session, uint32_t index);
const sim::Visual& currentView(const Session& session);
// How the renderers shade a simulation's view.
FieldShading fieldShading(sim::Shading shading);
// The view parameters that change with the simulation's parameters every frame: the number of
// particles drawn and their size.
void updatePointView(Session& session);

// Hands `object` (an offscreen target, a readback buffer: what a run makes beside the session)
// to the session, which destroys it with `destroy` at close, once the GPU has settled: never while
// frames may still use it, and without a wait of its own that could hang. The reference stays
// valid until then.
template <typename T>
T& keepUntilClose(Session& session, T object, void (*destroy)(const Device&, T&)) {
    auto owned = std::make_shared<T>(std::move(object));
    session.releaseAtClose.push_back([owned, destroy](const Device& d) { destroy(d, *owned); });
    return *owned;
}

// The GPU work of the session, settled as closeSession does (bounded; a side that failed or
// stopped releases the other's waits). True when nothing remains in flight: only then may
// objects the frames used be destroyed. For owners of such objects outside the session (the
// window's swapchain) before closeSession.
bool settleGpuWork(Session& session);

// Whether a session of this process left GPU work unsettled at close (its objects were left to the
// driver). The process should then end with _exit: the CUDA runtime's exit handlers would wait
// for the broken context, and a faulted context can hold the GPU's engine for every process.
bool gpuWorkAbandoned();

// Returns the number of validation messages seen over the whole session (0 without --validate).
// Never hangs: waits for the GPU are bounded and, when one API waits for the other that failed,
// the waiting side is released; if the GPU still does not settle, GPU objects are left to the
// driver (the process is about to exit) rather than freed while in use, and it says so.
uint32_t closeSession(Session& session);

// Runs `body` on an opened session and closes it whatever happens. Returns the exit code: 0, or 1
// when --validate is on and the layer reported anything (the count is printed either way).
int runSession(Session& session, const std::function<void(Session&)>& body);

// The executable's own folder (where shaders/ and assets/ sit in the build tree and in a bundle;
// an installed estuary finds them in ../share/estuary).
std::filesystem::path executableDir();

} // namespace estuary
