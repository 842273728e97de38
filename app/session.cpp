#include "session.h"
#include "gl_frames.h"
#include "colormap.h"
#include "fault_injection.h"
#include "frame.h"
#include "interop_context.h"
#include "memory_budget.h"
#include "simulations.h"
#include "vk_check.h"
#include "watchdog.h"

#ifdef ESTUARY_HAVE_CUDA
#include "estuary/interop/cuda_devices.h"
#include "estuary/interop/device_match.h"

#include <cuda_runtime_api.h>
#endif

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace estuary {

std::filesystem::path executableDir() {
    return std::filesystem::read_symlink("/proc/self/exe").parent_path();
}

#ifdef ESTUARY_HAVE_CUDA
namespace {

// Why a matched pair cannot run the CUDA backend, or "" when it can: the Vulkan twin must offer
// interop's device extensions, and CUDA must open a context on the device (which a prohibited
// compute mode or another process's exclusive use refuses).
std::string whyPairCannotRun(const interop::DevicePair& pair) {
    uint32_t count = 0;
    VK_CHECK(vkEnumerateDeviceExtensionProperties(pair.vulkan.handle, nullptr, &count, nullptr));
    std::vector<VkExtensionProperties> offered(count);
    VK_CHECK(
        vkEnumerateDeviceExtensionProperties(pair.vulkan.handle, nullptr, &count, offered.data()));
    for (const char* extension : interop::requiredDeviceExtensions())
        if (std::none_of(offered.begin(), offered.end(), [&](const VkExtensionProperties& e) {
                return std::strcmp(e.extensionName, extension) == 0;
            }))
            return pair.vulkan.name + " lacks the device extension " + extension;
    const cudaError_t err = cudaSetDevice(pair.cuda.ordinal);
    if (err == cudaSuccess) return {};
    (void)cudaGetLastError(); // the next device's checks start clean
    return std::string("CUDA cannot open a context on it: ") + cudaGetErrorName(err) + " (" +
           cudaGetErrorString(err) + ")";
}

// The foundation's description of the physical device `handle` of `instance`.
PhysicalDeviceInfo physicalDeviceOf(VkInstance instance, VkPhysicalDevice handle) {
    for (const PhysicalDeviceInfo& info : listPhysicalDevices(instance))
        if (info.handle == handle) return info;
    throw runtimeError("a physical device listed by interop is not among the instance's devices");
}

} // namespace
#endif

BackendChoice chooseBackend(const Options& options, VkInstance instance) {
    BackendChoice choice;
#ifdef ESTUARY_HAVE_CUDA
    if (options.backend != Backend::Cpu) {
        const auto cuda = interop::listCudaDevices();
        std::string problem = cuda.problem;
        if (problem.empty()) {
            try {
                // Every usable pair in CUDA order: the first that can run is taken.
                const std::vector<interop::DevicePair> pairs = interop::matchDevices(
                    interop::listVulkanDevices(instance, vkGetInstanceProcAddr), cuda.devices,
                    options.device);
                std::string skipped;
                for (const interop::DevicePair& pair : pairs) {
                    const std::string name = "CUDA device " + std::to_string(pair.cuda.ordinal) +
                                             " (" + pair.cuda.name + ")";
                    if (const std::string why = whyPairCannotRun(pair); !why.empty()) {
                        skipped += "\n  " + name + ": " + why;
                        continue;
                    }
                    choice.kind = Backend::Cuda;
                    choice.physical = physicalDeviceOf(instance, pair.vulkan.handle);
                    choice.cudaDevice = pair.cuda.ordinal;
                    choice.reason = name + " is Vulkan device " + pair.vulkan.name +
                                    " (same UUID " + interop::formatUuid(pair.vulkan.uuid.data()) +
                                    ")" + (skipped.empty() ? "" : "; skipped:" + skipped);
                    return choice;
                }
                problem = "no CUDA device matched with Vulkan can run:" + skipped;
            } catch (const Error& e) {
                problem = e.what();
            }
        }
        if (options.backend == Backend::Cuda)
            throw unsupported("--backend cuda cannot run: " + problem);
        choice.reason = "no CUDA device usable with Vulkan: " + problem;
    } else {
        choice.reason = "--backend cpu was requested";
    }
#else
    if (options.backend == Backend::Cuda)
        throw unsupported("--backend cuda cannot run: this estuary was built without CUDA (nvcc "
                          "was not found when it was configured); use --backend cpu");
    choice.reason = options.backend == Backend::Cpu ? "--backend cpu was requested"
                                                    : "this estuary was built without CUDA";
#endif
    choice.kind = Backend::Cpu;
    choice.physical = pickDefaultPhysicalDevice(instance);
    return choice;
}

namespace {

// shaders/ and assets/ sit beside the executable in the build tree and in a bundle; installed, they
// are in share/estuary, ESTUARY_DATA_DIR_FROM_BIN away from bin/. Where neither has them, the
// renderer's error names the file it missed beside the executable.
std::filesystem::path findDataDir() {
    const std::filesystem::path beside = executableDir();
    if (std::filesystem::exists(beside / "shaders")) return beside;
    const std::filesystem::path installed = (beside / ESTUARY_DATA_DIR_FROM_BIN).lexically_normal();
    return std::filesystem::exists(installed / "shaders") ? installed : beside;
}

// Before any allocation: does the run fit? Exit 3 naming need and budget if not.
void checkRunFitsInMemory(const Session& session, const BackendConfig& config) {
    const BackendKind kind = session.choice.kind == Backend::Cpu ? BackendKind::Cpu
                             : session.hostCopy                  ? BackendKind::HostCopy
                                                                 : BackendKind::Cuda;
    std::optional<uint64_t> cudaFree;
#ifdef ESTUARY_HAVE_CUDA
    if (kind != BackendKind::Cpu) cudaFree = interop::cudaFreeMemory(session.choice.cudaDevice);
#endif
    const sim::OutputLayout layout = checkedOutputs(config);
    const uint64_t cells = uint64_t(config.grid.width) * config.grid.height * config.grid.depth;
    const MemoryNeed need =
        estimateMemory(*config.simulation, layout, cells, config.slots, kind, config.particles);
    checkMemoryBudget(need, queryMemoryBudget(session.device, cudaFree),
                      config.simulation->name + " on a " + gridName(config.grid) + " grid" +
                          (config.particles
                               ? " with " + std::to_string(config.particles) + " particles"
                               : std::string()) +
                          " and " + std::to_string(config.slots) + " frame(s) in flight");
}

// The options' count for the simulation they named, else its default for the backend.
uint32_t particleCount(const Session& session) {
    const sim::SimDefinition& def = *session.simulation;
    if (def.particles.max == 0) return 0;
    if (def.name == session.options.simulation && session.options.particles >= 0)
        return uint32_t(session.options.particles);
    return session.choice.kind == Backend::Cuda ? def.particles.cudaDefault
                                                : def.particles.cpuDefault;
}

std::unique_ptr<SimBackend> makeBackend(Session& session, Extent grid) {
    session.particles = particleCount(session);
    BackendConfig config;
    config.simulation = session.simulation;
    config.grid = grid;
    config.slots = session.options.framesInFlight;
    config.seed = session.options.seed;
    config.particles = session.particles;
    config.displayImage = currentView(session).image;
    config.stampFrameIndex = session.stampFrames;
    config.cudaGraphs = session.options.cudaGraphs;
    config.exportOutputs = session.options.consumer == Consumer::OpenGL;
    config.binaryHandoff = session.gl && session.glHandoff == GlHandoff::Binary;
    checkRunFitsInMemory(session, config);
#ifdef ESTUARY_HAVE_CUDA
    if (session.choice.kind == Backend::Cuda && session.hostCopy)
        return createHostCopyBackend(session.device, session.interop, config,
                                     session.choice.cudaDevice);
    if (session.choice.kind == Backend::Cuda)
        return createCudaBackend(session.interop, session.pool, config, session.choice.cudaDevice);
#endif
    return createCpuBackend(session.device, session.interop, config);
}

} // namespace

FieldShading fieldShading(sim::Shading shading) {
    switch (shading) {
    case sim::Shading::ColormapMagnitude:
        return FieldShading::ColormapMagnitude;
    case sim::Shading::Rgb:
        return FieldShading::Rgb;
    default:
        return FieldShading::Colormap;
    }
}

namespace {

// The renderer for the current view of the backend's outputs: the view's image, its format and
// shading, and the particles where the simulation has them.
void openRenderer(Session& session) {
    if (session.gl) return openGlRenderer(session);
    session.recorded.assign(session.commands.size(), {}); // they name the renderer's objects
    const sim::SimDefinition& def = *session.simulation;
    const sim::Visual& shown = currentView(session);
    session.backend->setDisplayIndex(shown.image);
    RendererDesc desc;
    desc.targetFormat = session.targetFormat;
    desc.fieldFormat = session.backend->displayImage(0).format;
    desc.shading = fieldShading(shown.shading);
    desc.fragmentShader = shown.fragmentShader;
    desc.dataDir = session.dataDir;
    desc.slotCount = session.backend->slotCount();
    desc.points = def.points.buffer >= 0 && session.particles > 0;
    desc.volume = session.backend->displayImage(0).shape.viewType == VK_IMAGE_VIEW_TYPE_3D;
    // The compute draw writes offscreen targets of the run's resolution (options.cpp keeps it to
    // headless and benchmark runs).
    desc.compute =
        drawPathFor(session.options.draw, session.device.properties.deviceType ==
                                              VK_PHYSICAL_DEVICE_TYPE_CPU) == DrawPath::Compute;
    session.renderer = createRenderer(session.device, session.pool, desc);
    if (desc.compute)
        setComputeExtent(session.device, session.renderer,
                         {session.options.resolution.width, session.options.resolution.height});
    for (uint32_t slot = 0; slot < session.backend->slotCount(); ++slot) {
        const GpuImage& field = session.backend->displayImage(slot);
        setFieldImage(session.device, session.renderer, slot, field.view, field.extent,
                      field.shape.depth);
        if (desc.points) {
            const GpuBuffer& points =
                session.backend->outputBuffer(slot, uint32_t(def.points.buffer));
            setPointBuffer(session.device, session.renderer, slot, points.handle, points.size);
        }
    }
    session.view.valueMin = shown.valueMin;
    session.view.valueMax = shown.valueMax;
    session.view.pointSpeedMax = def.points.speedMax;
}

// Whichever renderer draws: the Vulkan one, or the OpenGL consumer's imports and program.
void closeRenderer(Session& session) {
    destroyRenderer(session.device, session.renderer);
    closeGlRenderer(session);
}

// The backend and the renderer drawing its outputs: made together, since the images' formats come
// from the simulation.
void openBackendAndRenderer(Session& session, Extent grid) {
    session.backend = makeBackend(session, grid);
    openRenderer(session);
}

// One command buffer and two timestamp queries (the draw's start and end) per entry of the
// backend's host ring.
void createCommandRing(Session& session) {
    if (session.device.timestampValidBits > 0) {
        VkQueryPoolCreateInfo queryInfo{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        queryInfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
        queryInfo.queryCount = 2 * session.backend->hostRingSize();
        VK_CHECK(
            vkCreateQueryPool(session.device.handle, &queryInfo, nullptr, &session.timestamps));
        setDebugName(session.device, VK_OBJECT_TYPE_QUERY_POOL,
                     reinterpret_cast<uint64_t>(session.timestamps), "draw timestamps");
    }
    session.commands.resize(session.backend->hostRingSize());
    session.recorded.assign(session.commands.size(), {});
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = session.pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = uint32_t(session.commands.size());
    VK_CHECK(vkAllocateCommandBuffers(session.device.handle, &alloc, session.commands.data()));
}

// Only with no frame in flight.
void destroyCommandRing(Session& session) {
    if (!session.commands.empty())
        vkFreeCommandBuffers(session.device.handle, session.pool, uint32_t(session.commands.size()),
                             session.commands.data());
    session.commands.clear();
    session.recorded.clear();
    if (session.timestamps) vkDestroyQueryPool(session.device.handle, session.timestamps, nullptr);
    session.timestamps = VK_NULL_HANDLE;
}

// Before a backend goes: the GPU is idle and every frame's times are collected.
void drainFrames(Session& session) {
    const WatchdogScope watch("draining after frame", session.nextFrame,
                              2 * frameWaitTimeoutNs(session));
    finishFrames(session); // bounded: every frame submitted so far is drawn
    session.backend->finish(frameWaitTimeoutNs(session));
    VK_CHECK(vkDeviceWaitIdle(session.device.handle)); // the queue is idle by now: returns at once
}

} // namespace

// The end of a session, whatever happened before: true when no GPU work remains. A side that
// failed or stopped signals no more, so the other side's waits on it are released; if both wait
// for each other (a hang), the simulation's waits are released first. Every wait is bounded.
bool settleGpuWork(Session& session) {
    if (session.gpuStuck) return false;
    const uint64_t timeout = frameWaitTimeoutNs(session);
    const auto vulkanDone = [&](uint64_t within) {
        if (session.gl) return glFramesDrawn(session, within); // it draws: its frames to finish
        if (session.nextFrame == 0 || !session.frameTimeline) return true;
        try {
            return waitTimelineFor(session.device, session.frameTimeline, session.nextFrame,
                                   within);
        } catch (const Error& e) { // device lost: nothing more runs on it
            std::fprintf(stderr, "estuary: while finishing: %s\n", e.what());
            return true;
        }
    };
    SimBackend* backend = session.backend.get();
    bool vulkan = vulkanDone(0);
    bool simulation = !backend || backend->simulationSettled(0);
    if (vulkan && simulation) return true; // the usual end: nothing in flight
    const uint64_t next = session.nextFrame;
    if (simulation) { // done or failed: Vulkan's waits on it can only pass if released
        if (backend->releaseVulkanWaits(next, timeout / 2)) vulkan = vulkanDone(timeout / 2);
    } else {
        vulkan = vulkanDone(timeout / 2);
        simulation = backend->simulationSettled(vulkan ? timeout / 2 : 0);
        if (!simulation) { // waiting for Vulkan, which will not signal: release it
            std::fprintf(stderr,
                         "estuary: the simulation's GPU work is still busy at teardown "
                         "(%s); releasing its waits on Vulkan\n",
                         backend->waitState().c_str());
            simulation = backend->releaseSimulationWaits(next, timeout / 4) &&
                         backend->simulationSettled(timeout / 4);
        }
        if (simulation && !vulkan && backend->releaseVulkanWaits(next, timeout / 4))
            vulkan = vulkanDone(timeout / 4);
    }
    if (vulkan && simulation) return true;
    session.gpuStuck = true;
    std::fprintf(stderr,
                 "estuary: the GPU did not settle at teardown (%s); leaving its objects to the "
                 "driver, which frees them when the process exits\n",
                 !vulkan && !simulation ? "Vulkan and the simulation still busy"
                 : !vulkan              ? "Vulkan still busy"
                                        : "the simulation still busy");
    return false;
}

void recreateBackend(Session& session, Extent grid) {
    recreateBackend(session, grid, session.options.framesInFlight);
}

void recreateBackend(Session& session, Extent grid, uint32_t framesInFlight) {
    drainFrames(session);
    closeRenderer(session);
    session.backend.reset(); // its images and semaphores go before the new ones are made
    session.options.grid = grid;
    session.options.framesInFlight = framesInFlight;
    openBackendAndRenderer(session, grid);
    if (session.commands.size() != session.backend->hostRingSize()) {
        destroyCommandRing(session);
        createCommandRing(session);
    }
}

void switchSimulation(Session& session, const sim::SimDefinition& def) {
    session.simulation = &def;
    session.params = sim::initialParams(def);
    if (def.name == session.options.simulation)
        for (const ParamSetting& setting : session.options.params)
            session.params[size_t(sim::findParam(def, setting.name))] = setting.value;
    session.stepsPerFrame =
        session.options.stepsPerFrame >= 0 && def.name == session.options.simulation
            ? session.options.stepsPerFrame
            : def.stepsPerFrame;
    session.viewIndex = 0;
    if (def.name == session.options.simulation && !session.options.view.empty())
        session.viewIndex = uint32_t(std::max(0, sim::findView(def, session.options.view)));
    session.view.valueMin = currentView(session).valueMin;
    session.view.valueMax = currentView(session).valueMax;
    // A 2D grid for a 3D simulation (or the reverse), when the window switches: its default.
    if ((def.dimensions == 3) != (session.options.grid.depth > 1))
        session.options.grid = defaultGrid(def.dimensions);
    if (!session.backend) return; // not opened yet: openDevice builds them
    drainFrames(session);
    destroyRenderer(session.device, session.renderer);
    session.backend.reset();
    openBackendAndRenderer(session, session.options.grid);
}

const sim::Visual& currentView(const Session& session) {
    return session.simulation->views.at(session.viewIndex);
}

void switchView(Session& session, uint32_t index) {
    if (index >= session.simulation->views.size())
        throw std::invalid_argument("switchView: view " + std::to_string(index) + " of " +
                                    std::to_string(session.simulation->views.size()));
    session.viewIndex = index;
    session.view.valueMin = currentView(session).valueMin;
    session.view.valueMax = currentView(session).valueMax;
    if (!session.backend) return;
    drainFrames(session); // the renderer's descriptors may be in use by frames in flight
    closeRenderer(session);
    openRenderer(session);
}

void updatePointView(Session& session) {
    const sim::PointsVisual& points = session.simulation->points;
    const auto param = [&](int index, float otherwise) {
        return index >= 0 ? session.params[size_t(index)] : otherwise;
    };
    session.view.pointCount =
        session.showParticles && points.buffer >= 0
            ? sim::activeParticles(session.particles, param(points.shareParam, 1.0f))
            : 0;
    session.view.pointSize = param(points.sizeParam, 1.0f);
}

void openInstance(Session& session, const Options& options,
                  const std::vector<const char*>& instanceExtensions) {
    session.options = options;
    (void)faultPlan(); // a malformed ESTUARY_FAULT is exit 2 before any work
    session.dataDir = findDataDir();
    session.view.colormap = findColormap(options.colormap).value_or(0);
    constexpr float kRadiansPerDegree = 0.017453292f;
    session.view.yaw = options.cameraYawDegrees * kRadiansPerDegree;
    session.view.pitch = options.cameraPitchDegrees * kRadiansPerDegree;
    session.view.opacity = options.opacity;
    session.view.sliceAxis = options.sliceAxis;
    session.view.slicePosition = options.slicePosition;
    const sim::SimDefinition* def = findSimulation(options.simulation);
    if (!def)
        throw usageError("--sim " + options.simulation +
                         " is not a simulation (allowed: " + simulationNames() + ")");
    session.options.simulation = def->name; // "" named the default
    switchSimulation(session, *def);
    InstanceDesc desc;
    desc.validation = options.validate;
    desc.extensions = instanceExtensions;
    session.instance = createInstance(desc);
}

void openDevice(Session& session, VkSurfaceKHR surface, VkFormat targetFormat) {
    const Options& o = session.options;
    session.choice = chooseBackend(o, session.instance.handle);
    std::printf("estuary: %s on backend %s, %s\n  why: %s\n", session.simulation->name.c_str(),
                backendName(session.choice.kind),
                describePhysicalDevice(session.choice.physical).c_str(),
                session.choice.reason.c_str());
    std::fflush(stdout);

    DeviceDesc desc;
    desc.physical = session.choice.physical.handle;
    desc.presentSurface = surface;
#ifdef ESTUARY_HAVE_CUDA
    if (session.choice.kind == Backend::Cuda) desc.extensions = interop::requiredDeviceExtensions();
#endif
    if (surface) desc.extensions.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
    const bool opengl = o.consumer == Consumer::OpenGL;
    if (opengl && std::find_if(desc.extensions.begin(), desc.extensions.end(), [](const char* e) {
                      return std::strcmp(e, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME) == 0;
                  }) == desc.extensions.end())
        desc.extensions.push_back(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    session.device = createDevice(session.instance, desc);
    session.interop = interopContext(session.instance, session.device);
    session.pool = createCommandPool(
        session.device, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, "frame commands");
    session.targetFormat = targetFormat;
    if (opengl) openGlConsumer(session, session.glWindowProc != nullptr, session.glWindowProc);
    openBackendAndRenderer(session, o.grid);

    session.frameTimeline = createTimelineSemaphore(session.device, false, "frame timeline");
    createCommandRing(session);
}

namespace {
std::atomic<bool> gAbandoned{false};
} // namespace

bool gpuWorkAbandoned() {
    return gAbandoned.load();
}

uint32_t closeSession(Session& session) {
    // settleGpuWork waits at most twice the frame timeout; destroying should take no time.
    const WatchdogScope watch("teardown after frame", session.nextFrame,
                              2 * frameWaitTimeoutNs(session));
    if (session.device.handle && !settleGpuWork(session)) {
        // Freeing objects the GPU may still use is undefined; the process exits soon after.
        gAbandoned.store(true);
        const uint32_t messages = validationMessageCount(session.instance);
        (void)session.backend.release();
        session.interop = interop::Context{};
        session.device = Device{};
        session.instance = Instance{};
        return messages;
    }
    if (session.device.handle) {
        (void)vkDeviceWaitIdle(session.device.handle); // settled: returns at once (or device lost)
        for (auto release = session.releaseAtClose.rbegin();
             release != session.releaseAtClose.rend(); ++release)
            (*release)(session.device);
        session.releaseAtClose.clear();
        if (session.stallSemaphore)
            vkDestroySemaphore(session.device.handle, session.stallSemaphore, nullptr);
        destroyRenderer(session.device, session.renderer);
        session.glMessages = glDebugMessages(session);
        closeGlConsumer(session); // its imports before the Vulkan objects they import
        if (session.frameTimeline)
            vkDestroySemaphore(session.device.handle, session.frameTimeline, nullptr);
        if (session.timestamps)
            vkDestroyQueryPool(session.device.handle, session.timestamps, nullptr);
        session.backend.reset();
        if (session.pool) vkDestroyCommandPool(session.device.handle, session.pool, nullptr);
        session.interop = interop::Context{};
        destroyDevice(session.device);
    }
    const uint32_t messages = validationMessageCount(session.instance);
    destroyInstance(session.instance);
    return messages;
}

int runSession(Session& session, const std::function<void(Session&)>& body) {
    try {
        body(session);
    } catch (...) {
        // Keep the original error: a second failure while tearing down is only reported.
        try {
            closeSession(session);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "estuary: also failed while closing: %s\n", e.what());
        }
        throw;
    }
    const uint32_t messages = closeSession(session);
    if (!session.options.validate) return 0;
    std::printf("estuary: validation layer reported %u message(s)\n", messages);
    if (session.options.consumer == Consumer::OpenGL)
        std::printf("estuary: OpenGL debug output reported %u error(s)\n", session.glMessages);
    return messages + session.glMessages > 0 ? int(ExitCode::Runtime) : 0;
}

} // namespace estuary
