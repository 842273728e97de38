// The OpenGL consumer (ESTUARY_CONSUMER_OPENGL): Vulkan still allocates and exports every image,
// CUDA (or the host) still writes them; OpenGL imports each copy's memory as a texture with its
// mip chain and the frame timelines as GL semaphores, and draws the picture's field view into a
// framebuffer object (shown in the window by a blit). A frame, in order:
//   hand-off in (GL waits `written` ≥ f + 1, or the slot's binary semaphore, or the host polls;
//   host-written images: a Vulkan upload released to the external queue family, which GL waits
//   for on a semaphore or, without GL_EXT_semaphore_fd, the host) → levels 1.. of CUDA-written
//   images with ESTUARY_IMAGE_GENERATE_MIPS, blitted by GL (host-written ones get theirs in the
//   Vulkan upload) → reads → draw → reads → hand-off out (GL
//   signals `released` = f + 1 / the slot's binary semaphore / the host signals once GL's fence
//   passed; host-written images: GL signals that it has drawn them) → a fence per host-ring
//   entry, which the frames-in-flight wait polls.
#include "viewer.h"
#include "field/field_view.h"
#include "cuda_side.h"
#include "gl_context.h"
#include "gl_field.h"
#include "gl_interop.h"
#include "vk_check.h"

#include <epoxy/gl.h>
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <thread>

namespace estuary::lib {

// One binary semaphore shared by both APIs: Vulkan's exported handle and GL's import of it.
struct SharedSemaphore {
    VkSemaphore vk = VK_NULL_HANDLE;
    GlSemaphore gl;
};

struct GlSide {
    GlContext context;
    estuary_gl_handoff handoff = ESTUARY_GL_HANDOFF_HOST;
    std::string handoffWhy;
    std::map<const estuary_image*, std::vector<GlImage>> images; // per copy
    std::map<const estuary_view*, GlFieldRenderer> renderers;
    GlSemaphore written, released;                          // timeline hand-off
    std::vector<GlSemaphore> writtenBinary, releasedBinary; // binary hand-off, per slot
    bool semaphoresImported = false;
    GlTarget target;
    std::vector<GLsync> fences;     // per host-ring entry
    std::vector<GLuint> timestamps; // per host-ring entry: draw start and end
    uint64_t lastDrawEndNs = 0;
    std::vector<uint32_t> cudaTextures; // the frame's CUDA-written textures (kept: no allocation)
    // Host-written images where GL has GL_EXT_semaphore_fd, per host-ring entry: `uploaded`
    // (Vulkan signals after the upload and its release; GL waits) and `drawn` (GL signals after
    // the frame's draw and reads; the next upload waits). `pendingDrawn`: the `drawn` GL signalled
    // last, not yet waited for (-1: none). `uploadValue`: the frame timeline value the entry's
    // last upload signals, awaited before its command buffer is reset.
    std::vector<SharedSemaphore> uploaded, drawn;
    int pendingDrawn = -1;
    std::vector<uint64_t> uploadValue;
};

void Deleter::operator()(GlSide* p) const {
    delete p;
}

namespace {

const char* handoffName(estuary_gl_handoff h) {
    switch (h) {
    case ESTUARY_GL_HANDOFF_TIMELINE:
        return "timeline";
    case ESTUARY_GL_HANDOFF_BINARY:
        return "binary";
    case ESTUARY_GL_HANDOFF_HOST:
        return "host";
    default:
        return "auto";
    }
}

// GPU-side hand-offs need a GPU producer (CUDA); the timeline one GL_NV_timeline_semaphore, the
// binary one GL_EXT_semaphore_fd.
estuary_gl_handoff resolveHandoff(estuary_gl_handoff asked, bool gpuProducer, const GlInfo& gl,
                                  std::string& why) {
    const auto missing = [&](const char* ext) {
        return unsupported(std::string("gl_handoff ") + handoffName(asked) + ": " + describeGl(gl) +
                           " lacks " + ext + "; allowed here: " +
                           (gl.timelineSemaphore ? "timeline, binary, host"
                            : gl.semaphoreFd     ? "binary, host"
                                                 : "host"));
    };
    if (asked == ESTUARY_GL_HANDOFF_TIMELINE && !gl.timelineSemaphore)
        throw missing(gl.semaphoreFd ? "GL_NV_timeline_semaphore" : "GL_EXT_semaphore_fd");
    if (asked == ESTUARY_GL_HANDOFF_BINARY && !gl.semaphoreFd) throw missing("GL_EXT_semaphore_fd");
    if (!gpuProducer) {
        if (asked == ESTUARY_GL_HANDOFF_TIMELINE || asked == ESTUARY_GL_HANDOFF_BINARY)
            throw unsupported(std::string("gl_handoff ") + handoffName(asked) +
                              " needs CUDA writing the images: host-written frames are uploaded "
                              "by the host, which then hands them over");
        why = "the frames are produced on the host";
        return ESTUARY_GL_HANDOFF_HOST;
    }
    if (asked != ESTUARY_GL_HANDOFF_AUTO) {
        why = "asked for";
        return asked;
    }
    if (gl.timelineSemaphore) {
        why = "OpenGL has GL_NV_timeline_semaphore";
        return ESTUARY_GL_HANDOFF_TIMELINE;
    }
    if (gl.semaphoreFd) {
        why = "OpenGL has GL_EXT_semaphore_fd but no timeline semaphores";
        return ESTUARY_GL_HANDOFF_BINARY;
    }
    why = "OpenGL has no GL_EXT_semaphore_fd: the host waits between the APIs";
    return ESTUARY_GL_HANDOFF_HOST;
}

void importSemaphores(estuary_viewer& v) {
    GlSide& gl = *v.gl;
    if (gl.semaphoresImported || gl.handoff == ESTUARY_GL_HANDOFF_HOST || !v.cuda) return;
    const CudaHandoff h = cudaHandoff(v);
    const auto import = [&](VkSemaphore s, bool timeline, const char* name) {
        return importGlSemaphore(gl.context, interop::exportSemaphoreFd(v.interop, s), timeline,
                                 name);
    };
    if (gl.handoff == ESTUARY_GL_HANDOFF_TIMELINE) {
        gl.written = import(h.written, true, "written");
        gl.released = import(h.released, true, "released");
    } else {
        for (size_t slot = 0; slot < h.writtenBinary.size(); ++slot) {
            gl.writtenBinary.push_back(import(h.writtenBinary[slot], false, "written (binary)"));
            gl.releasedBinary.push_back(import(h.releasedBinary[slot], false, "released (binary)"));
        }
    }
    gl.semaphoresImported = true;
}

// Polls until `done` holds, up to the frame timeout, looking at CUDA every 50 ms: a CUDA fault is
// reported at once. Not a blocking wait: NVIDIA's blocking waits (glClientWaitSync, and
// vkWaitSemaphores on the CUDA-signalled timeline) returned about 10 ms late on the H100.
template <class Done> void poll(estuary_viewer& v, Done&& done, const std::string& what) {
    using Clock = std::chrono::steady_clock;
    const uint64_t timeout = frameWaitTimeoutNs(v);
    const auto start = Clock::now();
    auto lastCheck = start;
    for (;;) {
        if (done()) return;
        const auto now = Clock::now();
        if (uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(now - start).count()) >=
            timeout)
            break;
        if (now - lastCheck > std::chrono::milliseconds(50)) {
            throwIfCudaFailed(v);
            lastCheck = now;
        }
        if (now - start < std::chrono::milliseconds(2))
            std::this_thread::yield();
        else
            std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    const std::string state = waitState(v);
    throw timeoutError("timed out after " + formatSeconds(timeout) + " waiting for " + what +
                       (state.empty() ? "" : "; " + state) +
                       "; ESTUARY_WAIT_TIMEOUT_S sets the limit for slower runs");
}

// Whether host-written images are handed over by semaphores: GL imports them
// (GL_EXT_semaphore_fd) and the Vulkan device exports them.
bool hostSemaphores(const estuary_viewer& v) {
    return v.gl->context.info.semaphoreFd && v.semaphoreFd;
}

// GL's semaphores for host-written images, made on first use.
void createHostSemaphores(estuary_viewer& v) {
    GlSide& gl = *v.gl;
    if (!gl.uploaded.empty()) return;
    const auto make = [&](std::vector<SharedSemaphore>& list, const char* name) {
        for (uint32_t entry = 0; entry < v.hostRing; ++entry) {
            SharedSemaphore& s = list.emplace_back();
            s.vk = interop::createExportableBinarySemaphore(v.interop, name);
            s.gl = importGlSemaphore(gl.context, interop::exportSemaphoreFd(v.interop, s.vk), false,
                                     name);
        }
    };
    make(gl.uploaded, "host images uploaded");
    make(gl.drawn, "host images drawn");
}

// Hand-off in for host-written images: the frame's uploads with Vulkan, each then released to the
// external queue family in GENERAL, the layout GL is told. An upload rewrites its copy from
// UNDEFINED, so GL's hand-back needs no acquire: only the wait for GL's draws of it. Where GL has
// GL_EXT_semaphore_fd both waits are on the GPU (the upload waits `drawn`, GL waits `uploaded`);
// otherwise the host waits for the upload, and GL's draws of the copy were waited for by the
// frames-in-flight wait. Returns the GL textures of the frame's host-written images.
std::vector<uint32_t> uploadHostImages(estuary_viewer& v, estuary_frame& frame) {
    GlSide& gl = *v.gl;
    DrawSet set = drawSet(v, frame);
    std::erase_if(set.images, [&](const estuary_image* i) {
        return i->writer != ESTUARY_WRITER_HOST || !gl.images.count(i);
    });
    std::erase_if(set.buffers, [](const estuary_buffer*) { return true; });
    if (set.images.empty()) return {};
    const bool semaphores = hostSemaphores(v);
    if (semaphores) createHostSemaphores(v);
    const uint32_t entry = frame.entry;
    if (const uint64_t previous = gl.uploadValue[entry]) // the entry's command buffer is done
        poll(
            v, [&] { return timelineValue(v.device, v.frameTimeline) >= previous; },
            "the upload of frame " + std::to_string(previous - 1));
    VkCommandBuffer cmd = v.entries[entry].commands;
    VK_CHECK(vkResetCommandBuffer(cmd, 0));
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
    recordBeforeDraw(v, cmd, frame.index, set, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT);
    std::vector<uint32_t> textures;
    for (const estuary_image* image : set.images) {
        const uint32_t copy = copyOf(*image, frame.index);
        textures.push_back(gl.images.at(image)[copy].texture);
        if (image->writtenFrame == frame.index)
            interop::recordReleaseToExternal(
                cmd, v.interop, image->exported[copy], VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    }
    VK_CHECK(vkEndCommandBuffer(cmd));
    std::vector<VkSemaphoreSubmitInfo> waits, signals;
    VkSemaphoreSubmitInfo uploaded{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    uploaded.semaphore = v.frameTimeline;
    uploaded.value = frame.index + 1;
    uploaded.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    signals.push_back(uploaded);
    if (semaphores) {
        if (gl.pendingDrawn >= 0) {
            VkSemaphoreSubmitInfo drawn{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
            drawn.semaphore = gl.drawn[size_t(gl.pendingDrawn)].vk;
            drawn.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
            waits.push_back(drawn);
            gl.pendingDrawn = -1;
        }
        uploaded.semaphore = gl.uploaded[entry].vk;
        uploaded.value = 0;
        signals.push_back(uploaded);
    }
    submitCommands(v.device, cmd, waits, signals);
    gl.uploadValue[entry] = frame.index + 1;
    if (semaphores)
        glWaitSemaphore(gl.uploaded[entry].gl, 0, textures);
    else
        waitTimeline(v.device, v.frameTimeline, frame.index + 1, "the upload of the frame",
                     frameWaitTimeoutNs(v));
    return textures;
}

bool fencePassed(GLsync fence) {
    const GLenum r = glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT, 0);
    if (r == GL_WAIT_FAILED) throwIfGlError("glClientWaitSync");
    return r == GL_ALREADY_SIGNALED || r == GL_CONDITION_SATISFIED;
}

void fitTarget(estuary_viewer& v, VkExtent2D extent) {
    GlSide& gl = *v.gl;
    if (gl.target.extent.width == extent.width && gl.target.extent.height == extent.height) return;
    destroyGlTarget(gl.target);
    gl.target = createGlTarget(extent);
}

} // namespace

void openGl(estuary_viewer& v, bool gpuProducer) {
    Owned<GlSide> side(new GlSide);
    const bool debug = v.flags & ESTUARY_VIEWER_VALIDATION;
    side->context = v.window
                        ? adoptCurrentGlContext(glfwGetProcAddress, "GLFW window", v.physical.uuid,
                                                v.physical.driverUuid, debug)
                        : createHeadlessGlContext(v.physical.uuid, v.physical.driverUuid, debug);
    v.gl = std::move(side);
    GlSide& gl = *v.gl;
    try {
        gl.handoff = resolveHandoff(v.glHandoff, gpuProducer, gl.context.info, gl.handoffWhy);
        gl.fences.assign(v.hostRing, nullptr);
        gl.uploadValue.assign(v.hostRing, 0);
        gl.timestamps.resize(2 * v.hostRing);
        glGenQueries(GLsizei(gl.timestamps.size()), gl.timestamps.data());
        fitTarget(v, {v.width, v.height});
        throwIfGlError("setting up the OpenGL consumer");
    } catch (...) {
        closeGl(v);
        throw;
    }
    v.glHandoff = gl.handoff;
    logMessage(v, ESTUARY_LOG_INFO, "drawn by " + describeGl(v));
}

void closeGl(estuary_viewer& v) {
    if (!v.gl) return;
    GlSide& gl = *v.gl;
    for (GLsync& fence : gl.fences)
        if (fence) glDeleteSync(fence);
    if (!gl.timestamps.empty())
        glDeleteQueries(GLsizei(gl.timestamps.size()), gl.timestamps.data());
    for (auto& [view, renderer] : gl.renderers)
        destroyGlFieldRenderer(renderer);
    for (auto* list : {&gl.writtenBinary, &gl.releasedBinary})
        for (GlSemaphore& s : *list)
            destroyGlSemaphore(s);
    for (auto* list : {&gl.uploaded, &gl.drawn})
        for (SharedSemaphore& s : *list) {
            destroyGlSemaphore(s.gl); // GL's import first: the device is idle by now
            if (s.vk) vkDestroySemaphore(v.device.handle, s.vk, nullptr);
        }
    destroyGlSemaphore(gl.written);
    destroyGlSemaphore(gl.released);
    for (auto& [image, copies] : gl.images)
        for (GlImage& copy : copies)
            destroyGlImage(copy);
    destroyGlTarget(gl.target);
    destroyGlContext(gl.context);
    v.gl.reset();
}

// Each copy imported as a texture. CUDA-written images with ESTUARY_IMAGE_GENERATE_MIPS get a
// framebuffer per level: GL builds their levels 1.. in every frame, after its wait for CUDA's
// writes (host-written ones get theirs from the Vulkan upload, before the release to GL). A
// failure leaves nothing imported, so the image can be freed.
void glImportImage(estuary_viewer& v, estuary_image& image) {
    GlSide& gl = *v.gl;
    if (image.kind != ESTUARY_IMAGE_2D) return; // OpenGL draws 2D fields only
    std::vector<GlImage> copies;
    try {
        for (uint32_t copy = 0; copy < image.copies; ++copy) {
            const interop::ExportedImage& e = image.writer == ESTUARY_WRITER_CUDA
                                                  ? cudaExportedImage(image, copy)
                                                  : image.exported[copy];
            GlImportedImageDesc desc;
            desc.format = e.image.format;
            desc.extent = e.image.extent;
            desc.levels = e.image.mipLevels;
            desc.allocationSize = e.allocationSize;
            desc.dedicated = e.dedicated;
            desc.name = image.name + ", copy " + std::to_string(copy);
            copies.push_back(
                importGlImage(interop::exportMemoryFd(v.interop, e.image.memory), desc));
            if (image.generateMips && image.writer == ESTUARY_WRITER_CUDA)
                prepareGlMips(copies.back(), image.name);
        }
        importSemaphores(v);
    } catch (...) {
        for (GlImage& copy : copies)
            destroyGlImage(copy);
        throw;
    }
    gl.images[&image] = std::move(copies);
}

void glForgetImage(estuary_viewer& v, estuary_image& image) {
    auto found = v.gl->images.find(&image);
    if (found == v.gl->images.end()) return;
    for (GlImage& copy : found->second)
        destroyGlImage(copy);
    v.gl->images.erase(found);
}

void glAddView(estuary_viewer& v, estuary_view& view) {
    GlFieldDesc desc;
    const auto& state = view.as<ImageViewState>();
    desc.shading = FieldShading(state.shading);
    desc.fragmentShader = state.shader.empty() ? "field.frag" : state.shader;
    desc.dataDir = v.dataDir;
    desc.kit = &v.kit;
    // GL compiles GLSL sources (estuary's in shaders/glsl); a shader given only as the SPIR-V
    // Vulkan loads has none.
    const std::filesystem::path source = v.dataDir / "shaders" / "glsl" / desc.fragmentShader;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(source, ec))
        throw unsupported("estuary_add_field_view: the OpenGL consumer compiles a view's shader "
                          "from its GLSL source, and there is none at " +
                          source.string() + " (Vulkan loads " + desc.fragmentShader +
                          ".spv); put the GLSL source there, with estuary's field_common.glsl "
                          "and draw_main.glsl beside it");
    v.gl->renderers.emplace(&view, createGlFieldRenderer(desc));
}

void glRemoveView(estuary_viewer& v, estuary_view& view) {
    auto found = v.gl->renderers.find(&view);
    if (found == v.gl->renderers.end()) return;
    destroyGlFieldRenderer(found->second);
    v.gl->renderers.erase(found);
}

// The frame's reads (estuary_frame_read_image) in GL's command stream, so they see what the
// draw sees: before it, after the hand-off in, or after it, before the hand-off out.
void readTexels(estuary_viewer& v, const estuary_frame& frame, bool afterDraw) {
    for (const ReadRequest& read : v.entries[frame.entry].reads) {
        if (read.afterDraw != afterDraw || !read.destination) continue;
        const estuary_image& image = *read.image;
        const GlImage& copy = v.gl->images.at(&image)[copyOf(image, frame.index)];
        readGlTexels(copy, image.vkFormat, read.level, uint32_t(read.offset.x),
                     uint32_t(read.offset.y), read.extent.width, read.extent.height,
                     read.destination,
                     size_t(read.extent.width) * read.extent.height * image.texelBytes);
    }
}

void glEndFrame(estuary_viewer& v, estuary_frame& frame) {
    GlSide& gl = *v.gl;
    const uint32_t slot = frame.slot, entry = frame.entry;
    const estuary_view* bg = backgroundView(v, 0); // one panel only (setLayout)
    const estuary_image* image = bg ? bg->image() : nullptr;
    const bool protocol = v.cuda && v.protocolStart && frame.index >= *v.protocolStart;
    // The frame's CUDA-written images GL sees (drawn, read, their mips built): the hand-offs name
    // their textures, so GL takes and gives them back in GENERAL, the layout CUDA writes in.
    DrawSet set = drawSet(v, frame);
    std::erase_if(set.images, [&](const estuary_image* i) {
        return i->writer != ESTUARY_WRITER_CUDA || !gl.images.count(i);
    });
    std::vector<uint32_t>& textures = gl.cudaTextures;
    textures.clear();
    for (const estuary_image* i : set.images)
        textures.push_back(gl.images.at(i)[copyOf(*i, frame.index)].texture);
    // Hand-off in.
    if (protocol && gl.handoff == ESTUARY_GL_HANDOFF_TIMELINE)
        glWaitSemaphore(gl.written, frame.index + 1, textures);
    else if (protocol && gl.handoff == ESTUARY_GL_HANDOFF_BINARY)
        glWaitSemaphore(gl.writtenBinary[slot], 0, textures);
    else if (protocol) {
        const VkSemaphore written = cudaHandoff(v).written;
        poll(
            v, [&] { return timelineValue(v.device, written) >= frame.index + 1; },
            "CUDA to write frame " + std::to_string(frame.index));
    }
    // ESTUARY_IMAGE_GENERATE_MIPS: levels 1.. from the level 0 CUDA wrote, inside the hand-off
    // (CUDA cannot write the copy again before GL gives it back), before the reads and the draw,
    // as the Vulkan consumer builds them in its draw.
    for (const estuary_image* i : set.images)
        if (i->generateMips) generateGlMips(gl.images.at(i)[copyOf(*i, frame.index)]);
    const std::vector<uint32_t> hostTextures = uploadHostImages(v, frame);
    readTexels(v, frame, false);
    // Draw into the framebuffer object (the window shows it by a blit).
    const VkExtent2D extent = windowExtent(v);
    if (extent.width > 0 && extent.height > 0) fitTarget(v, extent);
    glQueryCounter(gl.timestamps[2 * entry], GL_TIMESTAMP);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, gl.target.framebuffer);
    if (image && gl.images.count(image)) {
        drawGlField(gl.renderers.at(bg), gl.images.at(image)[copyOf(*image, frame.index)].texture,
                    image->extent, gl.target.extent, viewParams(v, *bg));
    } else {
        glViewport(0, 0, GLsizei(gl.target.extent.width), GLsizei(gl.target.extent.height));
        glClearColor(v.background[0], v.background[1], v.background[2], 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
    }
    glQueryCounter(gl.timestamps[2 * entry + 1], GL_TIMESTAMP);
    readTexels(v, frame, true);
    // Hand-off out: the slot goes back to CUDA once GL has read it.
    if (protocol && gl.handoff == ESTUARY_GL_HANDOFF_TIMELINE)
        glSignalSemaphore(gl.released, frame.index + 1, textures);
    if (protocol && gl.handoff == ESTUARY_GL_HANDOFF_BINARY)
        glSignalSemaphore(gl.releasedBinary[slot], 0, textures);
    if (!hostTextures.empty() && !gl.drawn.empty()) {
        glSignalSemaphore(gl.drawn[entry].gl, 0, hostTextures);
        gl.pendingDrawn = int(entry);
    }
    if (gl.fences[entry]) glDeleteSync(gl.fences[entry]);
    gl.fences[entry] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    if (v.window) {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, gl.target.framebuffer);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
        const GLint w = GLint(gl.target.extent.width), h = GLint(gl.target.extent.height);
        glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
        swapGlBuffers(v);
    }
    glFlush();
    if (protocol && gl.handoff == ESTUARY_GL_HANDOFF_HOST) {
        glWaitEntry(v, entry, frame.index, "the host hand-off");
        VkSemaphoreSignalInfo signal{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
        signal.semaphore = cudaHandoff(v).released;
        signal.value = frame.index + 1;
        VK_CHECK(vkSignalSemaphore(v.device.handle, &signal));
    }
}

void glWaitEntry(estuary_viewer& v, uint32_t entry, uint64_t frame, const char* why) {
    GLsync fence = v.gl->fences[entry];
    if (!fence) return;
    poll(
        v, [&] { return fencePassed(fence); },
        "OpenGL to finish frame " + std::to_string(frame) + " (" + why + ")");
}

bool glFramesDrawn(estuary_viewer& v, uint64_t timeoutNs) {
    if (!v.gl || v.nextFrame == 0) return true;
    const GLsync last = v.gl->fences[(v.nextFrame - 1) % v.hostRing];
    if (!last) return true;
    const GLenum r = glClientWaitSync(last, GL_SYNC_FLUSH_COMMANDS_BIT, timeoutNs);
    if (r == GL_WAIT_FAILED) {
        // Not known to be drawn: the caller must not free memory GL may still read.
        const GLenum error = glGetError();
        logMessage(v, ESTUARY_LOG_WARNING,
                   std::string("glClientWaitSync on the last frame failed (") + glErrorName(error) +
                       "): its draws are not known to be done");
        return false;
    }
    return r == GL_ALREADY_SIGNALED || r == GL_CONDITION_SATISFIED;
}

void glCollect(estuary_viewer& v, uint64_t frame, FrameRecord& record) {
    GlSide& gl = *v.gl;
    const uint32_t entry = uint32_t(frame % v.hostRing);
    GLuint64 start = 0, end = 0;
    glGetQueryObjectui64v(gl.timestamps[2 * entry], GL_QUERY_RESULT, &start);
    glGetQueryObjectui64v(gl.timestamps[2 * entry + 1], GL_QUERY_RESULT, &end);
    record.drawMs = double(end - start) / 1e6;
    if (gl.lastDrawEndNs && start >= gl.lastDrawEndNs) {
        record.gpuIntervalMs = double(end - gl.lastDrawEndNs) / 1e6;
        record.waitMs = double(start - gl.lastDrawEndNs) / 1e6;
    }
    gl.lastDrawEndNs = end;
}

std::vector<uint8_t> readGlPixels(estuary_viewer& v, VkExtent2D& extent) {
    extent = v.gl->target.extent;
    return readGlPixels(v.gl->target);
}

uint32_t glMessages(const estuary_viewer& v) {
    return v.gl ? glDebugMessageCount(v.gl->context) : 0;
}

std::string describeGl(const estuary_viewer& v) {
    const GlSide& gl = *v.gl;
    return "OpenGL: " + describeGl(gl.context.info) + "; hand-off " + handoffName(gl.handoff) +
           " (" + gl.handoffWhy + "); host-written images released to the external queue family, " +
           (hostSemaphores(v)             ? "handed over by semaphores"
            : gl.context.info.semaphoreFd ? "their uploads waited for by the host (the Vulkan "
                                            "device has no VK_KHR_external_semaphore_fd)"
                                          : "their uploads waited for by the host (no "
                                            "GL_EXT_semaphore_fd)");
}

} // namespace estuary::lib
