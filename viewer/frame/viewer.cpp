// A viewer from creation to teardown: the description checked and resolved, the data folder
// found, the Vulkan instance and device (the twin of the first usable CUDA device, trying each in
// turn), the CUDA side, the window or offscreen target, the command ring; and the bounded
// teardown that never leaves one API waiting for the other.
#include "viewer.h"
#include "annotation_layer.h"
#include "cuda_side.h"
#include "slabs.h"
#include "swapchain.h"
#include "vk_check.h"

#include "estuary/interop/vulkan_device.h"

#include <algorithm>
#include <cstring>
#include <atomic>
#include <cstdlib>
#include <dlfcn.h>

namespace estuary::lib {
namespace {

std::atomic<bool> gAbandoned{false};

std::string versionString(uint32_t v) {
    return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) +
           "." + std::to_string(VK_API_VERSION_PATCH(v));
}

std::string driverVersionString(const VkPhysicalDeviceProperties& p) {
    const uint32_t dv = p.driverVersion;
    // NVIDIA packs its driver version as 10.8.8.6 bits; others follow the Vulkan convention.
    if (p.vendorID == 0x10DE)
        return std::to_string(dv >> 22) + "." + std::to_string((dv >> 14) & 0xFF) + "." +
               std::to_string((dv >> 6) & 0xFF);
    return versionString(dv);
}

// shaders/ and assets/: asked for, $ESTUARY_DATA_DIR, beside this library (a build tree or a
// bundle), or the install tree's share/estuary next to lib/.
std::filesystem::path findDataDir(const char* asked) {
    namespace fs = std::filesystem;
    const auto holds = [](const fs::path& dir) {
        std::error_code ec;
        return fs::is_regular_file(dir / "shaders" / "field.frag.spv", ec);
    };
    std::vector<fs::path> tried;
    if (asked && *asked) {
        if (!holds(asked))
            throw usageError(std::string("data_dir ") + asked +
                             " does not hold estuary's shaders (shaders/field.frag.spv)");
        return asked;
    }
    if (const char* env = std::getenv("ESTUARY_DATA_DIR"); env && *env) {
        if (!holds(env))
            throw usageError(std::string("ESTUARY_DATA_DIR=") + env +
                             " does not hold estuary's shaders (shaders/field.frag.spv)");
        return env;
    }
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&findDataDir), &info) && info.dli_fname) {
        const fs::path library = fs::weakly_canonical(fs::path(info.dli_fname)).parent_path();
        for (const fs::path& dir : {library, library / ".." / "share" / "estuary",
                                    library / ".." / ".." / "share" / "estuary"}) {
            if (holds(dir)) return dir.lexically_normal();
            tried.push_back(dir.lexically_normal());
        }
    }
    const fs::path exe = fs::read_symlink("/proc/self/exe").parent_path();
    for (const fs::path& dir : {exe, exe / ".." / "share" / "estuary"}) {
        if (holds(dir)) return dir.lexically_normal();
        tried.push_back(dir.lexically_normal());
    }
    std::string where;
    for (const fs::path& dir : tried)
        where += (where.empty() ? "" : ", ") + dir.string();
    throw unsupported("estuary's shaders and assets were not found (looked in " + where +
                      "); set estuary_viewer_desc.data_dir or ESTUARY_DATA_DIR");
}

template <class Enum> void checkEnum(Enum value, Enum last, const char* what, const char* allowed) {
    if (uint32_t(value) > uint32_t(last))
        throw usageError(std::string(what) + " " + std::to_string(int(value)) + " is not one of " +
                         allowed);
}

std::string versionText(uint32_t version) {
    return std::to_string(ESTUARY_VERSION_MAJOR(version)) + "." +
           std::to_string(ESTUARY_VERSION_MINOR(version)) + "." +
           std::to_string(ESTUARY_VERSION_PATCH(version));
}

void resolveDesc(estuary_viewer& v, const estuary_viewer_desc& d) {
    const uint32_t mine = ESTUARY_API_VERSION;
    if (d.api_version == 0)
        throw usageError("estuary_viewer_desc.api_version is 0: set it to ESTUARY_API_VERSION");
    const bool compatible = ESTUARY_VERSION_MAJOR(d.api_version) == ESTUARY_VERSION_MAJOR(mine) &&
                            (ESTUARY_VERSION_MAJOR(mine) > 0 ||
                             ESTUARY_VERSION_MINOR(d.api_version) == ESTUARY_VERSION_MINOR(mine));
    if (!compatible)
        throw usageError("this program was built against estuary.h " +
                         std::to_string(ESTUARY_VERSION_MAJOR(d.api_version)) + "." +
                         std::to_string(ESTUARY_VERSION_MINOR(d.api_version)) +
                         ", but the library is " + std::to_string(ESTUARY_VERSION_MAJOR(mine)) +
                         "." + std::to_string(ESTUARY_VERSION_MINOR(mine)) + ": rebuild it");
    // A newer header's structs may carry fields (read by struct_size) that this library would
    // silently ignore, and its program may call functions this library lacks.
    if (d.api_version > mine)
        throw unsupported("this program was built against estuary.h " + versionText(d.api_version) +
                          ", newer than the library (" + versionText(mine) +
                          "): install libestuary " + versionText(d.api_version) + " or later");
    v.apiVersion = d.api_version;
    checkEnum(d.display, ESTUARY_DISPLAY_HEADLESS, "display",
              "ESTUARY_DISPLAY_AUTO, _WINDOW, _HEADLESS");
    checkEnum(d.present_mode, ESTUARY_PRESENT_IMMEDIATE, "present_mode",
              "ESTUARY_PRESENT_FIFO, _MAILBOX, _IMMEDIATE");
    checkEnum(d.cuda, ESTUARY_CUDA_OFF, "cuda", "ESTUARY_CUDA_AUTO, _REQUIRED, _DEVICE, _OFF");
    checkEnum(d.draw_path, ESTUARY_DRAW_COMPUTE, "draw_path",
              "ESTUARY_DRAW_AUTO, _RASTER, _COMPUTE");
    checkEnum(d.consumer, ESTUARY_CONSUMER_OPENGL, "consumer", "ESTUARY_CONSUMER_VULKAN, _OPENGL");
    checkEnum(d.gl_handoff, ESTUARY_GL_HANDOFF_HOST, "gl_handoff",
              "ESTUARY_GL_HANDOFF_AUTO, _TIMELINE, _BINARY, _HOST");
    constexpr uint32_t kFlags = ESTUARY_VIEWER_VALIDATION | ESTUARY_VIEWER_NO_UI |
                                ESTUARY_VIEWER_NO_PANELS | ESTUARY_VIEWER_NO_HOTKEYS |
                                ESTUARY_VIEWER_NO_PIPELINE_CACHE;
    if (d.flags & ~kFlags) throw usageError("estuary_viewer_desc.flags has unknown bits");
    if (d.frames_in_flight > kMaxFramesInFlight)
        throw usageError("frames_in_flight " + std::to_string(d.frames_in_flight) +
                         " is not in 1.." + std::to_string(kMaxFramesInFlight) + " (0: 2)");
    if (d.width > 16384 || d.height > 16384)
        throw usageError("the picture " + std::to_string(d.width) + "x" + std::to_string(d.height) +
                         " is larger than 16384x16384");
    if (d.cuda == ESTUARY_CUDA_DEVICE && d.cuda_device < 0)
        throw usageError("cuda_device " + std::to_string(d.cuda_device) +
                         " is not a CUDA ordinal (0 or more)");
    v.headless = d.display == ESTUARY_DISPLAY_HEADLESS ||
                 (d.display == ESTUARY_DISPLAY_AUTO && !hasDisplay());
    if (d.display == ESTUARY_DISPLAY_WINDOW && !hasDisplay())
        throw unsupported("no display (DISPLAY and WAYLAND_DISPLAY are unset): a window cannot "
                          "open; use ESTUARY_DISPLAY_HEADLESS");
    v.width = d.width ? d.width : 1024;
    v.height = d.height ? d.height : 768;
    if (d.title) v.title = d.title;
    v.slots = d.frames_in_flight ? d.frames_in_flight : 2;
    if (d.handoff_batch > v.slots)
        throw usageError("handoff_batch " + std::to_string(d.handoff_batch) +
                         " is more than the frames in flight (" + std::to_string(v.slots) +
                         "): a batch's frames each need a slot of their own (0 or 1: no batches)");
    v.handoffBatch = d.handoff_batch ? d.handoff_batch : 1;
    // The host may record up to twice the slots ahead (GPU-side waits guard the slots); a
    // multiple of the slots, so a host-ring entry always meets the same slot.
    v.hostRing = v.slots >= 8 ? v.slots : 2 * v.slots;
    v.presentMode = d.present_mode;
    v.consumer = d.consumer;
    v.glHandoff = d.gl_handoff;
    v.flags = d.flags;
    // Any program (the examples in the tests) can be run under the validation layer.
    if (const char* text = std::getenv("ESTUARY_VALIDATION"); text && *text) {
        const std::string value = text;
        if (value != "0" && value != "1")
            throw usageError("ESTUARY_VALIDATION=" + value + " is not 0 or 1");
        if (value == "1" && !(v.flags & ESTUARY_VIEWER_VALIDATION)) {
            v.flags |= ESTUARY_VIEWER_VALIDATION;
            v.validationFromEnvironment = true;
        }
    }
    v.log = d.log;
    v.logUser = d.log_user;
    if (d.draw_path == ESTUARY_DRAW_COMPUTE &&
        (!v.headless || v.consumer == ESTUARY_CONSUMER_OPENGL))
        throw usageError("draw_path ESTUARY_DRAW_COMPUTE is for headless viewers drawn by Vulkan "
                         "(a window's swapchain and OpenGL rasterize)");
    v.drawPath = d.draw_path; // AUTO resolved once the device is known
    v.panels.visible = !(d.flags & ESTUARY_VIEWER_NO_UI);
    v.dataDir = findDataDir(d.data_dir);
    if (d.screenshot_dir) {
        std::error_code ec;
        if (!std::filesystem::is_directory(d.screenshot_dir, ec))
            throw usageError(std::string("screenshot_dir ") + d.screenshot_dir +
                             " is not a folder (F12 writes its screenshots there; NULL: the "
                             "working folder)");
        v.screenshotDir = d.screenshot_dir;
    }
    v.dataDirText = v.dataDir.string();
}

// The device on `physical`, with interop's extensions where CUDA or OpenGL import its memory.
void openDevice(estuary_viewer& v, const PhysicalDeviceInfo& physical, bool interop,
                VkSurfaceKHR surface) {
    DeviceDesc desc;
    desc.physical = physical.handle;
    desc.presentSurface = surface;
    if (interop) {
        desc.extensions = interop::requiredDeviceExtensions();
    } else if (v.consumer == ESTUARY_CONSUMER_OPENGL) {
        // Host-written frames: OpenGL imports their memory, and where the device can export
        // semaphores, OpenGL and the uploads wait for each other on the GPU.
        desc.extensions = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME};
        if (deviceOffersExtension(physical.handle, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME))
            desc.extensions.push_back(VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
    }
    v.semaphoreFd = std::find_if(desc.extensions.begin(), desc.extensions.end(), [](const char* e) {
                        return std::strcmp(e, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME) == 0;
                    }) != desc.extensions.end();
    if (surface) desc.extensions.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
    v.physical = physical;
    v.device = createDevice(v.instance, desc);
    v.interop = interop::createContext({v.instance.handle, v.device.physical, v.device.handle,
                                        v.device.queueFamily, v.device.queue, vkGetInstanceProcAddr,
                                        v.instance.debugUtils});
}

void closeDevice(estuary_viewer& v) {
    closeCuda(v);
    v.interop = interop::Context{};
    destroyDevice(v.device);
}

// CUDA's device and its Vulkan twin: each usable pair in turn until one opens; without one, the
// best Vulkan device and why CUDA is not used (or, where CUDA was required, an error).
void chooseDevices(estuary_viewer& v, const estuary_viewer_desc& d, VkSurfaceKHR surface) {
    std::string problem;
    if (d.cuda == ESTUARY_CUDA_OFF) {
        v.cudaChoice = "CUDA is off (ESTUARY_CUDA_OFF)";
    } else {
        const bool binary = v.consumer == ESTUARY_CONSUMER_OPENGL;
        for (const CudaCandidate& c :
             cudaCandidates(v, d.cuda == ESTUARY_CUDA_DEVICE ? d.cuda_device : -1, problem)) {
            for (const PhysicalDeviceInfo& info : listPhysicalDevices(v.instance.handle)) {
                if (info.handle != c.vulkan) continue;
                try {
                    openDevice(v, info, true, surface);
                    if (binary) openGl(v, true);
                    openCuda(v, c.ordinal, v.glHandoff == ESTUARY_GL_HANDOFF_BINARY);
                    v.cudaChoice = c.reason;
                    return;
                } catch (const Error& e) {
                    problem += (problem.empty() ? "" : "; ") +
                               ("CUDA device " + std::to_string(c.ordinal) + ": ") + e.what();
                    closeGl(v);
                    closeDevice(v);
                }
            }
        }
        if (problem.empty()) problem = "no CUDA device could be opened with its Vulkan twin";
        if (d.cuda != ESTUARY_CUDA_AUTO)
            throw unsupported("CUDA was required but cannot run: " + problem);
        v.cudaChoice = "no CUDA device usable with Vulkan: " + problem;
    }
    openDevice(v, pickDefaultPhysicalDevice(v.instance.handle), false, surface);
    if (v.consumer == ESTUARY_CONSUMER_OPENGL) openGl(v, false);
}

void createCommandRing(estuary_viewer& v) {
    v.pool = createCommandPool(v.device, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                               "frame commands");
    if (v.device.timestampValidBits > 0) {
        VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        info.queryType = VK_QUERY_TYPE_TIMESTAMP;
        info.queryCount = kTimestampsPerEntry * v.hostRing;
        VK_CHECK(vkCreateQueryPool(v.device.handle, &info, nullptr, &v.timestamps));
        setDebugName(v.device, VK_OBJECT_TYPE_QUERY_POOL, uint64_t(v.timestamps),
                     "draw timestamps");
    }
    v.entries.resize(v.hostRing);
    std::vector<VkCommandBuffer> commands(v.hostRing);
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = v.pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = v.hostRing;
    VK_CHECK(vkAllocateCommandBuffers(v.device.handle, &alloc, commands.data()));
    for (uint32_t i = 0; i < v.hostRing; ++i)
        v.entries[i].commands = commands[i];
    // Not exported: the host waits on this one. The validation layer (rightly) cannot see the
    // payload of an exported semaphore, so a host wait on it would not retire command buffers.
    v.frameTimeline = createTimelineSemaphore(v.device, false, "frame timeline");
}

} // namespace

void logMessage(const estuary_viewer& v, estuary_log_level level, const std::string& message) {
    if (v.log) return v.log(v.logUser, level, message.c_str());
    std::fprintf(stderr, "estuary: %s%s\n",
                 level == ESTUARY_LOG_ERROR     ? "error: "
                 : level == ESTUARY_LOG_WARNING ? "warning: "
                                                : "",
                 message.c_str());
}

uint64_t frameWaitTimeoutNs(const estuary_viewer& v) {
    if (const auto set = gpuWaitTimeoutOverrideNs()) return *set;
    const uint64_t slowest = v.timing.slowestFrameNs;
    const uint64_t stretched = slowest > UINT64_MAX / 50 ? UINT64_MAX : 50 * slowest;
    return std::max(gpuWaitTimeoutNs(), stretched);
}

std::string waitState(const estuary_viewer& v) {
    return cudaWaitState(v);
}

void waitIdle(estuary_viewer& v, const char* why) {
    if (v.frame.active)
        throw usageError(std::string(why) + " is done between frames: frame " +
                         std::to_string(v.frame.index) + " has begun and not ended");
    if (v.nextFrame > 0) waitFrame(v, v.nextFrame - 1, why);
    if (v.cuda) finishCudaStream(v, frameWaitTimeoutNs(v));
    if (v.device.handle) VK_CHECK(vkQueueWaitIdle(v.device.queue)); // done by now: at once
}

void resizeOffscreen(estuary_viewer& v, VkExtent2D extent) {
    if (!v.headless || v.gl) throw usageError("only a headless Vulkan viewer's picture is resized");
    if (extent.width == v.width && extent.height == v.height) return;
    waitIdle(v, "resizing the picture"); // the frames in flight still draw into the old target
    OffscreenTarget fresh = createOffscreenTarget(v.device, extent, v.targetFormat);
    overlayForgetTargets(v); // its framebuffers hold the old target's view
    destroyOffscreenTarget(v.device, v.offscreen);
    v.offscreen = std::move(fresh);
    v.width = extent.width;
    v.height = extent.height;
    resizeViews(v, extent); // the panels' rectangles and what each view keeps of the size
}

bool settleGpuWork(estuary_viewer& v) {
    if (v.gpuStuck) return false;
    try { // draws held for a batch would otherwise never come
        submitHeldDraws(v);
    } catch (const Error& e) {
        logMessage(v, ESTUARY_LOG_WARNING, std::string("while finishing: ") + e.what());
    }
    const uint64_t timeout = frameWaitTimeoutNs(v);
    const auto vulkanDone = [&](uint64_t within) {
        if (v.gl) return glFramesDrawn(v, within);
        if (v.nextFrame == 0 || !v.frameTimeline) return true;
        try {
            return waitTimelineFor(v.device, v.frameTimeline, v.nextFrame, within);
        } catch (const Error& e) { // device lost: nothing more runs on it
            logMessage(v, ESTUARY_LOG_WARNING, std::string("while finishing: ") + e.what());
            return true;
        }
    };
    bool vulkan = vulkanDone(0);
    bool cuda = cudaSettled(v, 0);
    if (vulkan && cuda) return true; // the usual end: nothing in flight
    const uint64_t next = v.nextFrame;
    if (cuda) { // done or failed: Vulkan's waits on it can only pass if released
        if (releaseVulkanWaits(v, next, timeout / 2)) vulkan = vulkanDone(timeout / 2);
    } else {
        vulkan = vulkanDone(timeout / 2);
        cuda = cudaSettled(v, vulkan ? timeout / 2 : 0);
        if (!cuda) { // waiting for Vulkan, which will not signal: release it
            logMessage(v, ESTUARY_LOG_WARNING,
                       "the CUDA work is still busy (" + waitState(v) +
                           "); releasing its waits on Vulkan");
            cuda = releaseCudaWaits(v, next, timeout / 4) && cudaSettled(v, timeout / 4);
        }
        if (cuda && !vulkan && releaseVulkanWaits(v, next, timeout / 4))
            vulkan = vulkanDone(timeout / 4);
    }
    if (vulkan && cuda) return true;
    v.gpuStuck = true;
    logMessage(v, ESTUARY_LOG_ERROR,
               std::string("the GPU did not settle (") +
                   (!vulkan && !cuda ? "Vulkan and CUDA still busy"
                    : !vulkan        ? "Vulkan still busy"
                                     : "CUDA still busy") +
                   "); leaving its objects to the driver, which frees them when the process "
                   "exits");
    return false;
}

bool gpuWorkAbandoned() {
    return gAbandoned.load();
}

namespace {
void openViewer(estuary_viewer* v, const estuary_viewer_desc& desc);
} // namespace

estuary_viewer* createViewer(const estuary_viewer_desc& desc) {
    auto owned = std::make_unique<estuary_viewer>();
    resolveDesc(*owned, desc);
    estuary_viewer* v = owned.release();
    try {
        openViewer(v, desc);
    } catch (...) {
        try {
            destroyViewer(v);
        } catch (...) { // the first error is the one to report
        }
        throw;
    }
    return v;
}

namespace {

void openViewer(estuary_viewer* v, const estuary_viewer_desc& desc) {
    InstanceDesc instance;
    instance.validation = v->flags & ESTUARY_VIEWER_VALIDATION;
    // Validation messages reach the viewer's log (its callback, or standard error).
    instance.onMessage = [v](bool isError, const char* text) {
        logMessage(*v, isError ? ESTUARY_LOG_ERROR : ESTUARY_LOG_WARNING,
                   std::string("validation: ") + text);
    };
    if (!v->headless) openWindowSystem(*v); // GLFW names the instance extensions a surface needs
    if (!v->headless && v->consumer == ESTUARY_CONSUMER_VULKAN)
        instance.extensions = windowInstanceExtensions();
    v->instance = createInstance(instance);
    VkSurfaceKHR surface = VK_NULL_HANDLE;
    if (!v->headless) {
        openWindow(*v); // the surface the device must present to (Vulkan), or a GL context
        surface = windowSurface(*v);
    }
    chooseDevices(*v, desc, surface);
    const auto& p = v->physical.properties;
    v->deviceUuid = formatUuid(v->physical.uuid.data());
    v->deviceType = deviceTypeName(p.deviceType);
    v->vulkanVersion = versionString(p.apiVersion);
    v->driverVersion = driverVersionString(p);
    if (v->drawPath == ESTUARY_DRAW_AUTO)
        v->drawPath = v->headless && v->consumer == ESTUARY_CONSUMER_VULKAN &&
                              p.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU
                          ? ESTUARY_DRAW_COMPUTE
                          : ESTUARY_DRAW_RASTER;
    createCommandRing(*v);
    openKit(*v, !(desc.flags & ESTUARY_VIEWER_NO_PIPELINE_CACHE));
    if (v->consumer == ESTUARY_CONSUMER_OPENGL) {
        // OpenGL draws: the GL side was opened with the device
    } else if (v->headless) {
        v->targetFormat = VK_FORMAT_R8G8B8A8_UNORM;
        v->offscreen = createOffscreenTarget(v->device, {v->width, v->height}, v->targetFormat);
        openOverlay(*v, v->targetFormat); // for colorbars
    } else {
        createSwapchainFor(*v);
    }
    logMessage(*v, ESTUARY_LOG_INFO,
               std::string(p.deviceName) + " (" + v->deviceType + ", Vulkan " + v->vulkanVersion +
                   ", UUID " + v->deviceUuid + "); CUDA: " + v->cudaChoice);
    calibrateClocks(*v);
}

} // namespace

uint32_t destroyViewer(estuary_viewer* v) {
    closeServer(*v);   // its pages closed first: they see the server go, not a broken stream
    closeRecorder(*v); // a recording still running is finished (or, after a failure, deleted)
    if (v->device.handle && !settleGpuWork(*v)) {
        // Freeing objects the GPU may still use is undefined; the process should end soon.
        gAbandoned.store(true);
        const uint32_t messages = validationMessageCount(v->instance);
        for (auto* list : {&v->views})
            for (auto& p : *list)
                (void)p.release();
        for (auto& p : v->images)
            (void)p.release();
        for (auto& p : v->buffers)
            (void)p.release();
        for (auto& p : v->slabs)
            (void)p.release();
        (void)v->cuda.release();
        v->device = Device{};
        v->instance = Instance{};
        delete v;
        return messages;
    }
    uint32_t messages = 0;
    if (v->device.handle) {
        (void)vkDeviceWaitIdle(v->device.handle); // settled: returns at once (or device lost)
        v->slabs.clear(); // their streams finish first (the deleter waits for them)
        v->views.clear();
        closeOverlay(*v);
        closeGl(*v); // its imports before the Vulkan objects they import
        closeAnnotationLayer(*v);
        closeKit(*v); // after everything drawn with it
        v->images.clear();
        v->buffers.clear();
        destroyLayout(*v);
        closeWindow(*v);
        destroyOffscreenTarget(v->device, v->offscreen);
        for (EntryState& e : v->entries)
            destroyBuffer(v->device, e.readback);
        if (v->stallSemaphore) vkDestroySemaphore(v->device.handle, v->stallSemaphore, nullptr);
        if (v->frameTimeline) vkDestroySemaphore(v->device.handle, v->frameTimeline, nullptr);
        if (v->timestamps) vkDestroyQueryPool(v->device.handle, v->timestamps, nullptr);
        if (v->pool) vkDestroyCommandPool(v->device.handle, v->pool, nullptr);
        closeDevice(*v);
    } else {
        closeWindow(*v);
    }
    messages = validationMessageCount(v->instance);
    destroyInstance(v->instance);
    delete v;
    return messages;
}

} // namespace estuary::lib

estuary_viewer::~estuary_viewer() = default;
