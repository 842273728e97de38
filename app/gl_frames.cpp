#include "gl_frames.h"
#include "estuary/interop/exported.h"
#include "frame.h"
#include "gl_field.h"
#include "gl_interop.h"
#include "vk_check.h"
#include "watchdog.h"

#include <epoxy/gl.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cmath>
#include <cstdio>

namespace estuary {

struct GlFrames {
    GlContext context;
    bool window = false;
    GlHandoff handoff = GlHandoff::Host;
    std::string handoffWhy;
    GlFieldRenderer field;
    std::vector<std::vector<GlImage>> images;               // [slot][output image]
    std::vector<std::vector<uint32_t>> textures;            // [slot]: every image's texture
    GlSemaphore written, released;                          // timeline hand-off
    std::vector<GlSemaphore> writtenBinary, releasedBinary; // binary hand-off, per slot
    std::vector<GLsync> fences;     // per host-ring entry: the frame's GL work
    std::vector<GLuint> timestamps; // per host-ring entry: draw start and end
    uint64_t lastDrawEndNs = 0;
};

namespace {

GlFrames& glOf(const Session& session) {
    return *session.gl;
}

// GPU-side hand-offs need a GPU producer (the CUDA backend's FrameTimelines); the timeline one
// GL_NV_timeline_semaphore, the binary one GL_EXT_semaphore_fd.
GlHandoff resolveHandoff(const Session& session, const GlInfo& gl, std::string& why) {
    const GlHandoff asked = session.options.glHandoff;
    const bool gpuProducer = session.choice.kind == Backend::Cuda && !session.hostCopy;
    const auto missing = [&](const char* ext) {
        return unsupported("--gl-handoff " + std::string(glHandoffName(asked)) + ": " +
                           describeGl(gl) + " lacks " + ext + "; allowed here: " +
                           (gl.timelineSemaphore ? "timeline, binary, host"
                            : gl.semaphoreFd     ? "binary, host"
                                                 : "host"));
    };
    if (asked == GlHandoff::Timeline && !gl.timelineSemaphore)
        throw missing(gl.semaphoreFd ? "GL_NV_timeline_semaphore" : "GL_EXT_semaphore_fd");
    if (asked == GlHandoff::Binary && !gl.semaphoreFd) throw missing("GL_EXT_semaphore_fd");
    if (!gpuProducer) {
        if (asked == GlHandoff::Timeline || asked == GlHandoff::Binary)
            throw unsupported("--gl-handoff " + std::string(glHandoffName(asked)) +
                              " needs the CUDA backend with interop: the " +
                              (session.hostCopy ? "host-copy mode's" : "CPU backend's") +
                              " frames are uploaded by the host, which then hands them over");
        why = "the frames are produced on the host";
        return GlHandoff::Host;
    }
    if (asked != GlHandoff::Auto) {
        why = "asked for";
        return asked;
    }
    if (gl.timelineSemaphore) {
        why = "OpenGL has GL_NV_timeline_semaphore";
        return GlHandoff::Timeline;
    }
    if (gl.semaphoreFd) {
        why = "OpenGL has GL_EXT_semaphore_fd but no timeline semaphores";
        return GlHandoff::Binary;
    }
    why = "OpenGL has no GL_EXT_semaphore_fd: the host waits between the APIs";
    return GlHandoff::Host;
}

GlSemaphore importSemaphore(const Session& session, VkSemaphore semaphore, bool timeline,
                            const char* name) {
    return importGlSemaphore(glOf(session).context,
                             interop::exportSemaphoreFd(session.interop, semaphore), timeline,
                             name);
}

void importSlots(Session& session) {
    GlFrames& gl = glOf(session);
    SimBackend& backend = *session.backend;
    const sim::OutputLayout layout = checkedOutputs({.simulation = session.simulation,
                                                     .grid = session.options.grid,
                                                     .particles = session.particles});
    for (uint32_t slot = 0; slot < backend.slotCount(); ++slot) {
        std::vector<GlImage>& images = gl.images.emplace_back();
        std::vector<uint32_t>& textures = gl.textures.emplace_back();
        for (uint32_t i = 0; i < layout.images.size(); ++i) {
            const std::optional<SharedImage> shared = backend.sharedImage(slot, i);
            if (!shared)
                throw runtimeError(std::string("the ") + backend.name() +
                                   " backend's images are not exported for OpenGL");
            GlImportedImageDesc desc;
            desc.format = shared->format;
            desc.extent = shared->extent;
            desc.levels = shared->levels;
            desc.allocationSize = shared->allocationSize;
            desc.dedicated = shared->dedicated;
            desc.name = session.simulation->name + " " + layout.images[i].name + ", slot " +
                        std::to_string(slot);
            images.push_back(
                importGlImage(interop::exportMemoryFd(session.interop, shared->memory), desc));
            textures.push_back(images.back().texture);
        }
    }
    if (gl.handoff == GlHandoff::Host) return;
    const SharedHandoff h = *backend.sharedHandoff();
    if (gl.handoff == GlHandoff::Timeline) {
        gl.written = importSemaphore(session, h.written, true, "written");
        gl.released = importSemaphore(session, h.released, true, "released");
        return;
    }
    for (size_t slot = 0; slot < h.writtenBinary.size(); ++slot) {
        gl.writtenBinary.push_back(
            importSemaphore(session, h.writtenBinary[slot], false, "written (binary)"));
        gl.releasedBinary.push_back(
            importSemaphore(session, h.releasedBinary[slot], false, "released (binary)"));
    }
}

// Waits for GL fence `entry` (the frame that last used it) up to the session's frame timeout,
// looking at the simulation every 50 ms: a CUDA fault is reported at once. Polls instead of
// blocking in glClientWaitSync: NVIDIA's blocking wait returned about 10 ms late on the H100
// (host hand-off: 10.5 ms per frame), which would make the host hand-off look far worse than it is.
void waitGlEntry(Session& session, uint32_t entry, uint64_t frame, const char* why) {
    GlFrames& gl = glOf(session);
    GLsync fence = gl.fences[entry];
    if (!fence) return;
    using Clock = std::chrono::steady_clock;
    const uint64_t timeout = frameWaitTimeoutNs(session);
    const auto start = Clock::now();
    auto lastCheck = start;
    for (GLbitfield flags = GL_SYNC_FLUSH_COMMANDS_BIT;; flags = 0) {
        const GLenum r = glClientWaitSync(fence, flags, 0);
        if (r == GL_ALREADY_SIGNALED || r == GL_CONDITION_SATISFIED) return;
        if (r == GL_WAIT_FAILED) throwIfGlError("glClientWaitSync");
        const auto now = Clock::now();
        if (uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(now - start).count()) >=
            timeout)
            break;
        if (now - lastCheck > std::chrono::milliseconds(50)) {
            session.backend->throwIfFailed();
            lastCheck = now;
        }
        // Yield while the wait is short (frames take microseconds to milliseconds), then sleep.
        if (now - start < std::chrono::milliseconds(2))
            std::this_thread::yield();
        else
            std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    const std::string state = session.backend->waitState();
    throw runtimeError("timed out after " + formatSeconds(timeout) +
                       " waiting for OpenGL to finish frame " + std::to_string(frame) + " (" + why +
                       ")" + (state.empty() ? "" : "; " + state) +
                       "; ESTUARY_WAIT_TIMEOUT_S sets the limit for slower runs");
}

// The GL times of `finished` (ring entry `entry`), once its fence passed, and the simulation's.
void collectGlTimes(Session& session, uint64_t finished, uint32_t entry) {
    if (finished < session.collectedFrames) return;
    session.collectedFrames = finished + 1;
    GlFrames& gl = glOf(session);
    const SimBackend::SlotTimes sim = session.backend->finishedFrameTimes(finished);
    GLuint64 start = 0, end = 0;
    glGetQueryObjectui64v(gl.timestamps[2 * entry], GL_QUERY_RESULT, &start);
    glGetQueryObjectui64v(gl.timestamps[2 * entry + 1], GL_QUERY_RESULT, &end);
    FrameTiming* t = session.history.find(finished);
    if (!t) return;
    t->simMs = sim.simMs;
    t->renderMs = double(end - start) / 1e6;
    if (gl.lastDrawEndNs && start >= gl.lastDrawEndNs) {
        t->gpuIntervalMs = double(end - gl.lastDrawEndNs) / 1e6;
        t->waitMs =
            double(start - gl.lastDrawEndNs) / 1e6 + (std::isnan(sim.waitMs) ? 0.0 : sim.waitMs);
    }
    gl.lastDrawEndNs = end;
}

// Polls the counter of `written` (CUDA's timeline) until frame is written, bounded like every frame
// wait. Not vkWaitSemaphores: on the H100 a host wait on this CUDA-signalled timeline returned
// about 10 ms late, every frame (the host hand-off measured 10.6 ms per frame with it).
void waitWrittenByPolling(Session& session, VkSemaphore written, uint64_t frame) {
    using Clock = std::chrono::steady_clock;
    const uint64_t timeout = frameWaitTimeoutNs(session);
    const auto start = Clock::now();
    auto lastCheck = start;
    for (;;) {
        uint64_t value = 0;
        VK_CHECK(vkGetSemaphoreCounterValue(session.device.handle, written, &value));
        if (value >= frame + 1) return;
        const auto now = Clock::now();
        if (uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(now - start).count()) >=
            timeout)
            break;
        if (now - lastCheck > std::chrono::milliseconds(50)) {
            session.backend->throwIfFailed();
            lastCheck = now;
        }
        if (now - start < std::chrono::milliseconds(2))
            std::this_thread::yield();
        else
            std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    throw runtimeError("timed out after " + formatSeconds(timeout) +
                       " waiting for CUDA to write frame " + std::to_string(frame) + "; " +
                       session.backend->waitState() +
                       "; ESTUARY_WAIT_TIMEOUT_S sets the limit for slower runs");
}

// Host hand-off in: the slot's outputs are written before GL reads them.
void hostHandoffIn(Session& session, uint64_t frame, uint32_t entry) {
    SimBackend& backend = *session.backend;
    if (const auto h = backend.sharedHandoff()) { // CUDA: its signal of frame + 1
        waitWrittenByPolling(session, h->written, frame);
        return;
    }
    // Produced on the host: upload with Vulkan, wait for it.
    VkCommandBuffer cmd = session.commands[entry];
    VK_CHECK(vkResetCommandBuffer(cmd, 0));
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
    backend.recordBeforeDraw(cmd, frame);
    backend.recordAfterDraw(cmd, frame);
    VK_CHECK(vkEndCommandBuffer(cmd));
    VkSemaphoreSubmitInfo uploaded{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    uploaded.semaphore = session.frameTimeline;
    uploaded.value = frame + 1;
    uploaded.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    submitCommands(session.device, cmd, {}, {&uploaded, 1});
    waitTimeline(session.device, session.frameTimeline, frame + 1, "the upload of the frame",
                 frameWaitTimeoutNs(session));
}

// Host hand-off out (CUDA only): the slot goes back once GL has read it, i.e. once the frame's
// fence (`entry`) has passed.
void hostHandoffOut(Session& session, uint64_t frame, uint32_t entry) {
    const auto h = session.backend->sharedHandoff();
    if (!h) return;
    waitGlEntry(session, entry, frame, "the host hand-off");
    VkSemaphoreSignalInfo signal{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
    signal.semaphore = h->released;
    signal.value = frame + 1;
    VK_CHECK(vkSignalSemaphore(session.device.handle, &signal));
}

} // namespace

void openGlConsumer(Session& session, bool window, GlGetProc getProc) {
    auto gl = std::make_shared<GlFrames>();
    gl->window = window;
    const PhysicalDeviceInfo& physical = session.choice.physical;
    gl->context = window ? adoptCurrentGlContext(getProc, "GLFW window", physical.uuid,
                                                 physical.driverUuid, session.options.validate)
                         : createHeadlessGlContext(physical.uuid, physical.driverUuid,
                                                   session.options.validate);
    session.gl = gl;
    try {
        gl->handoff = resolveHandoff(session, gl->context.info, gl->handoffWhy);
    } catch (...) {
        closeGlConsumer(session);
        throw;
    }
    session.glHandoff = gl->handoff;
    std::printf("estuary: drawn by %s\n", describeGlConsumer(session).c_str());
    if (session.simulation->points.buffer >= 0)
        std::printf("estuary: the OpenGL consumer draws the field only, not the particles\n");
    std::fflush(stdout);
}

void openGlRenderer(Session& session) {
    GlFrames& gl = glOf(session);
    const sim::Visual& shown = currentView(session);
    session.backend->setDisplayIndex(shown.image);
    try {
        importSlots(session);
        GlFieldDesc desc;
        desc.shading = fieldShading(shown.shading);
        desc.fragmentShader = shown.fragmentShader;
        desc.dataDir = session.dataDir;
        gl.field = createGlFieldRenderer(desc);
        const uint32_t ring = session.backend->hostRingSize();
        gl.fences.assign(ring, nullptr);
        gl.timestamps.resize(2 * ring);
        glGenQueries(GLsizei(gl.timestamps.size()), gl.timestamps.data());
        throwIfGlError("importing the ring into OpenGL");
    } catch (...) {
        closeGlRenderer(session);
        throw;
    }
    gl.lastDrawEndNs = 0;
    session.view.valueMin = shown.valueMin;
    session.view.valueMax = shown.valueMax;
}

void closeGlRenderer(Session& session) {
    if (!session.gl) return;
    GlFrames& gl = glOf(session);
    for (GLsync& fence : gl.fences)
        if (fence) glDeleteSync(fence);
    gl.fences.clear();
    if (!gl.timestamps.empty())
        glDeleteQueries(GLsizei(gl.timestamps.size()), gl.timestamps.data());
    gl.timestamps.clear();
    destroyGlFieldRenderer(gl.field);
    for (auto* list : {&gl.writtenBinary, &gl.releasedBinary})
        for (GlSemaphore& s : *list)
            destroyGlSemaphore(s);
    gl.writtenBinary.clear();
    gl.releasedBinary.clear();
    destroyGlSemaphore(gl.written);
    destroyGlSemaphore(gl.released);
    for (auto& slot : gl.images)
        for (GlImage& image : slot)
            destroyGlImage(image);
    gl.images.clear();
    gl.textures.clear();
}

void closeGlConsumer(Session& session) {
    if (!session.gl) return;
    closeGlRenderer(session);
    destroyGlContext(session.gl->context);
    session.gl.reset();
}

void drawFrameGl(Session& session, uint64_t frame, uint32_t framebuffer, VkExtent2D extent,
                 const std::function<void(uint32_t, uint32_t, bool)>& inspect) {
    const WatchdogScope watch("frame", frame, frameWaitTimeoutNs(session));
    GlFrames& gl = glOf(session);
    SimBackend& backend = *session.backend;
    const uint32_t slot = uint32_t(frame % backend.slotCount());
    const uint32_t entry = uint32_t(frame % gl.fences.size());
    beginFrameTiming(session, frame);

    // 1. The only host wait of the GPU hand-offs: this ring entry's previous frame is drawn.
    if (frame >= gl.fences.size()) {
        waitGlEntry(session, entry, frame - gl.fences.size(), "the frames-in-flight limit");
        collectGlTimes(session, frame - gl.fences.size(), entry);
    }

    // 2. Simulate; a GPU producer signals on the GPU.
    backend.simulate(frame, session.params, session.stepsPerFrame);

    // 3. Hand-off in: GL's reads of the slot wait for the producer.
    const std::vector<uint32_t>& textures = gl.textures[slot];
    switch (gl.handoff) {
    case GlHandoff::Timeline:
        glWaitSemaphore(gl.written, frame + 1, textures);
        break;
    case GlHandoff::Binary:
        glWaitSemaphore(gl.writtenBinary[slot], 0, textures);
        break;
    default:
        hostHandoffIn(session, frame, entry);
    }

    // 4. Draw.
    const uint32_t shown = textures[backend.displayIndex()];
    if (inspect) inspect(shown, slot, false);
    glQueryCounter(gl.timestamps[2 * entry], GL_TIMESTAMP);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, framebuffer);
    const GlImage& image = gl.images[slot][backend.displayIndex()];
    drawGlField(gl.field, shown, image.extent, extent, session.view);
    glQueryCounter(gl.timestamps[2 * entry + 1], GL_TIMESTAMP);
    if (inspect) inspect(shown, slot, true);

    // 5. Hand-off out: the slot goes back to the producer once GL has read it; the fence tells the
    //    host when the frame is done.
    if (gl.handoff == GlHandoff::Timeline) glSignalSemaphore(gl.released, frame + 1, textures);
    if (gl.handoff == GlHandoff::Binary) glSignalSemaphore(gl.releasedBinary[slot], 0, textures);
    if (gl.fences[entry]) glDeleteSync(gl.fences[entry]);
    gl.fences[entry] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    glFlush();
    if (gl.handoff == GlHandoff::Host) hostHandoffOut(session, frame, entry);
    session.nextFrame = frame + 1;
}

void waitFrameDrawnGl(Session& session, uint64_t frame) {
    const WatchdogScope watch("waiting for frame", frame, frameWaitTimeoutNs(session));
    GlFrames& gl = glOf(session);
    waitGlEntry(session, uint32_t(frame % gl.fences.size()), frame, "a frame to be drawn");
}

void finishFramesGl(Session& session) {
    if (session.nextFrame == 0) return;
    const uint64_t last = session.nextFrame - 1;
    waitFrameDrawnGl(session, last);
    const uint32_t ring = uint32_t(glOf(session).fences.size());
    const uint64_t first = last + 1 >= ring ? last + 1 - ring : 0;
    for (uint64_t f = first; f <= last; ++f)
        collectGlTimes(session, f, uint32_t(f % ring));
    endFrameTiming(session, last);
}

bool glFramesDrawn(Session& session, uint64_t timeoutNs) {
    if (!session.gl || session.nextFrame == 0 || glOf(session).fences.empty()) return true;
    GlFrames& gl = glOf(session);
    const GLsync last = gl.fences[(session.nextFrame - 1) % gl.fences.size()];
    if (!last) return true;
    const GLenum r = glClientWaitSync(last, GL_SYNC_FLUSH_COMMANDS_BIT, timeoutNs);
    return r == GL_ALREADY_SIGNALED || r == GL_CONDITION_SATISFIED || r == GL_WAIT_FAILED;
}

std::string describeGlConsumer(const Session& session) {
    const GlFrames& gl = glOf(session);
    return "OpenGL: " + describeGl(gl.context.info) + "; hand-off " + glHandoffName(gl.handoff) +
           " (" + gl.handoffWhy + ")";
}

uint32_t glDebugMessages(const Session& session) {
    return session.gl ? glDebugMessageCount(session.gl->context) : 0;
}

} // namespace estuary
