// The frame, top to bottom:
//   begin: host waits for the frame that last used this host-ring entry (the only host wait) →
//          its times and readbacks are collected → on the frame's CUDA stream: start, and the wait
//          until the slot's previous frame is drawn (CUDA side, cuda_side.cpp)
//   [the user's CUDA work writes the slot's images and buffers; host writes fill staging memory]
//   end:   CUDA signals written = f + 1 → record (or reuse) the draw: acquire the slot from CUDA,
//          upload host writes, generate mips, draw the views, the UI, release the slot → submit,
//          waiting written ≥ f + 1 on the GPU, signalling released = f + 1 → present.
#include "viewer.h"
#include "cuda_side.h"
#include "vk_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace estuary::lib {
namespace {

bool protocolRuns(const estuary_viewer& v, uint64_t frame) {
    return v.cuda && v.protocolStart && frame >= *v.protocolStart;
}

// Debug-utils labels, so Nsight Graphics and RenderDoc show frames and their parts by name.
void beginLabel(const Device& device, VkCommandBuffer cmd, const char* name) {
    if (!device.debugUtils || !vkCmdBeginDebugUtilsLabelEXT) return;
    VkDebugUtilsLabelEXT label{VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
    label.pLabelName = name;
    vkCmdBeginDebugUtilsLabelEXT(cmd, &label);
}
void endLabel(const Device& device, VkCommandBuffer cmd) {
    if (device.debugUtils && vkCmdEndDebugUtilsLabelEXT) vkCmdEndDebugUtilsLabelEXT(cmd);
}

uint64_t mix(uint64_t h, uint64_t x) {
    h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

// What a command buffer recorded for this frame depends on, where it may be submitted again
// unchanged: 0 where it may not (readbacks, the UI, a window's swapchain image, a recording or a
// server, whose copy notes its frame as it is recorded).
uint64_t reuseKey(const estuary_viewer& v, const estuary_frame& frame, const DrawSet& set,
                  bool cudaWait) {
    if (!v.headless || overlayWanted(v) || !v.entries[frame.entry].reads.empty() || v.recorder ||
        v.server)
        return 0;
    uint64_t key = mix(v.drawVersion, cudaWait ? 1 : 2);
    for (const estuary_image* image : set.images)
        key = mix(key, reinterpret_cast<uintptr_t>(image) ^ (image->writtenFrame == frame.index));
    for (const estuary_buffer* buffer : set.buffers)
        key = mix(key, reinterpret_cast<uintptr_t>(buffer) ^ (buffer->writtenFrame == frame.index));
    return key == 0 ? 1 : key;
}

// The headless target: discarded, drawn, left for copies (screenshots).
void recordOffscreenBegin(VkCommandBuffer cmd, const OffscreenTarget& target) {
    recordBeginTarget(cmd, target);
}

void recordWindowBegin(VkCommandBuffer cmd, VkImage image) {
    // Whatever the image held is replaced; the acquire semaphore's wait stage (colour output) is
    // the source scope, so the transition happens after the presentation engine let go.
    ImageTransition toDraw;
    toDraw.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    toDraw.newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    toDraw.srcStage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
    toDraw.dstStage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
    toDraw.dstAccess = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT;
    recordImageBarrier(cmd, image, toDraw);
}

// `copied`: recordWindowCopy left the image in TRANSFER_SRC_OPTIMAL.
void recordWindowEnd(VkCommandBuffer cmd, VkImage image, bool copied) {
    ImageTransition toPresent;
    toPresent.oldLayout =
        copied ? VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL : VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    toPresent.newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    toPresent.srcStage =
        copied ? VK_PIPELINE_STAGE_2_COPY_BIT : VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
    toPresent.srcAccess = copied ? VK_ACCESS_2_NONE : VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT;
    recordImageBarrier(cmd, image, toPresent);
}

// The window's picture into the recording: the swapchain image as a copy source, copied.
void recordWindowCopy(estuary_viewer& v, VkCommandBuffer cmd, const estuary_frame& frame,
                      const WindowTarget& window) {
    ImageTransition toCopy;
    toCopy.oldLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    toCopy.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    toCopy.srcStage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
    toCopy.srcAccess = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT;
    toCopy.dstStage = VK_PIPELINE_STAGE_2_COPY_BIT;
    toCopy.dstAccess = VK_ACCESS_2_TRANSFER_READ_BIT;
    recordImageBarrier(cmd, window.image, toCopy);
    recordPictureCopy(v, cmd, frame.entry, frame.index, window.image, window.extent);
    servePictureCopy(v, cmd, frame.entry, frame.index, window.image, window.extent);
}

// A pick of `view` read after the frame's draw into `result` (nullptr: the View panel's), its
// pipeline made first where this is the view's first.
void addPick(estuary_frame& frame, estuary_view& view, const PickQuery& query,
             estuary_pick* result) {
    preparePick(*frame.viewer, view);
    ReadRequest read;
    read.pick = true;
    read.pickView = &view;
    read.pickQuery = query;
    // One panel holds every point, as before panels (elements within the radius of a point just
    // outside the picture are found).
    read.pickPanel = severalPanels(*frame.viewer) ? panelAt(*frame.viewer, query.x, query.y) : 0;
    read.bytes = sizeof(PickState);
    read.afterDraw = true;
    read.destination = result;
    frame.viewer->entries[frame.entry].reads.push_back(read);
    // Until the frame is drawn the caller's result says "not known yet", never a miss.
    if (result) {
        estuary_pick pending{};
        pending.struct_size = result->struct_size;
        pending.hit = -1;
        std::memcpy(result, &pending, std::min<size_t>(result->struct_size, sizeof(pending)));
    }
}

// The readback buffer holds every read of the frame, each at a 16-byte aligned offset.
void placeReads(estuary_viewer& v, EntryState& entry) {
    VkDeviceSize total = 0;
    for (ReadRequest& read : entry.reads) {
        read.stagingOffset = total;
        total += (read.bytes + 15) & ~VkDeviceSize(15);
    }
    if (total > entry.readback.size) {
        destroyBuffer(v.device, entry.readback); // its frame is drawn: the host waited for it
        entry.readback = createBuffer(
            v.device, std::max<VkDeviceSize>(total, 4096), VK_BUFFER_USAGE_TRANSFER_DST_BIT,
            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
            "frame readbacks");
    }
    // A pick that does not run (its view hidden or gone, no picture) delivers "none found".
    for (const ReadRequest& read : entry.reads)
        if (read.pick)
            std::memset(static_cast<uint8_t*>(entry.readback.mapped) + read.stagingOffset, 0,
                        read.bytes);
}

void recordFrame(estuary_viewer& v, estuary_frame& frame, VkCommandBuffer cmd, const DrawSet& set,
                 bool cudaWait, VkPipelineStageFlags2 waitStage, const WindowTarget& window) {
    EntryState& entry = v.entries[frame.entry];
    VK_CHECK(vkResetCommandBuffer(cmd, 0));
    entry.annotationsTimed = false;
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
    char name[48];
    std::snprintf(name, sizeof(name), "frame, ring entry %u", frame.entry);
    beginLabel(v.device, cmd, name);
    // The draw's start. Where the submission waits on CUDA, the wait holds back only the stages
    // that read its outputs, so a timestamp at the top would be written before the wait resolves:
    // it is written after the acquire barriers, at the compute-shader stage, inside the wait's
    // scope. Without a wait the uploads are part of the draw and the start stays at the top.
    if (v.timestamps) {
        vkCmdResetQueryPool(cmd, v.timestamps, kTimestampsPerEntry * frame.entry,
                            kTimestampsPerEntry);
        if (!cudaWait)
            vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, v.timestamps,
                                 kTimestampsPerEntry * frame.entry);
    }
    beginLabel(v.device, cmd, "acquire");
    recordBeforeDraw(v, cmd, frame.index, set, waitStage);
    recordColormapUploads(v.kit, cmd); // colormaps made since the last frame
    endLabel(v.device, cmd);
    if (v.timestamps && cudaWait)
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, v.timestamps,
                             kTimestampsPerEntry * frame.entry);
    // The picture's size (none where a window has nothing to draw into).
    const VkExtent2D picture = v.headless     ? v.offscreen.image.extent
                               : window.valid ? window.extent
                                              : VkExtent2D{};
    recordReads(v, cmd, entry, frame.index, false, picture);
    beginLabel(v.device, cmd, "draw");
    if (v.headless) {
        recordOffscreenBegin(cmd, v.offscreen);
        recordViews(v, cmd, frame.index, v.offscreen.image.handle, v.offscreen.image.view,
                    v.offscreen.image.extent, true);
        if (overlayWanted(v))
            recordOverlay(v, cmd, v.offscreen.image.view, v.offscreen.image.extent);
        recordEndTarget(cmd, v.offscreen, false);
        recordPictureCopy(v, cmd, frame.entry, frame.index, v.offscreen.image.handle,
                          v.offscreen.image.extent);
        servePictureCopy(v, cmd, frame.entry, frame.index, v.offscreen.image.handle,
                         v.offscreen.image.extent);
    } else if (window.valid) {
        recordWindowBegin(cmd, window.image);
        recordViews(v, cmd, frame.index, window.image, window.view, window.extent, true);
        if (overlayWanted(v)) recordOverlay(v, cmd, window.view, window.extent);
        const bool tapped = v.recorder || v.server;
        if (tapped) recordWindowCopy(v, cmd, frame, window);
        recordWindowEnd(cmd, window.image, tapped);
    }
    endLabel(v.device, cmd);
    recordReads(v, cmd, entry, frame.index, true, picture);
    beginLabel(v.device, cmd, "release");
    recordAfterDraw(v, cmd, frame.index, set);
    endLabel(v.device, cmd);
    if (v.timestamps)
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, v.timestamps,
                             kTimestampsPerEntry * frame.entry + 1);
    endLabel(v.device, cmd);
    VK_CHECK(vkEndCommandBuffer(cmd));
}

void submitFrame(estuary_viewer& v, const estuary_frame& frame, VkCommandBuffer cmd, bool cudaWait,
                 VkPipelineStageFlags2 waitStage, const WindowTarget& window) {
    VkSemaphoreSubmitInfo waits[3];
    uint32_t waitCount = 0;
    if (cudaWait) waits[waitCount++] = cudaDrawWait(v, frame.index, waitStage);
    if (v.faultVulkanStall == frame.index) {
        v.stallSemaphore = createTimelineSemaphore(v.device, false, "stall (estuary_inject_fault)");
        VkSemaphoreSubmitInfo never{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
        never.semaphore = v.stallSemaphore;
        never.value = 1;
        never.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
        waits[waitCount++] = never;
    }
    if (window.valid) {
        VkSemaphoreSubmitInfo w{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
        w.semaphore = window.acquired;
        w.stageMask = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
        waits[waitCount++] = w;
    }
    VkSemaphoreSubmitInfo signals[4];
    uint32_t signalCount = 0;
    signals[signalCount++] = drawnSignal(v, frame.index);
    if (cudaWait) signals[signalCount++] = cudaDrawSignal(v, frame.index);
    if (servedSignal(v, frame.index, signals[signalCount])) ++signalCount;
    if (window.valid) {
        VkSemaphoreSubmitInfo s{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
        s.semaphore = window.renderFinished;
        s.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
        signals[signalCount++] = s;
    }
    if (v.faultDeviceLost == frame.index)
        throwVkFailure(VK_ERROR_DEVICE_LOST, "vkQueueSubmit2 (estuary_inject_fault)", __FILE__,
                       __LINE__);
    submitCommands(v.device, cmd, {waits, waitCount}, {signals, signalCount});
    servedFrameSubmitted(v, frame.index);
}

// Served and recorded pictures leave as soon as their frames are drawn, not when their ring
// entries come round again: at a display's pace that is the frames in flight times the frame
// interval later (on lavapipe at 20 fps, 8 in flight: a page saw frames 272 ms late, against 101
// ms with 1 in flight). In frame order, from the oldest frame in flight, up to the first not yet
// drawn; nothing waits.
void collectDrawnPictures(estuary_viewer& v, uint64_t next) {
    if ((!v.server && !v.recorder) || v.gl) return;
    uint64_t f = std::max(v.picturesCollected, next >= v.hostRing ? next - v.hostRing : 0);
    for (; f < next && waitTimelineFor(v.device, v.frameTimeline, f + 1, 0); ++f) {
        collectRecordedPicture(v, f);
        collectServedPicture(v, f);
    }
    v.picturesCollected = f;
}

} // namespace

VkSemaphoreSubmitInfo drawnSignal(const estuary_viewer& v, uint64_t frame) {
    VkSemaphoreSubmitInfo drawn{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    drawn.semaphore = v.frameTimeline;
    drawn.value = frame + 1;
    drawn.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    return drawn;
}

void noteDeviceLost(estuary_viewer& v, const Error& e) {
    if (e.status() != ESTUARY_ERROR_DEVICE_LOST) return;
    v.gpuFailure = e.what();
    v.gpuFailureStatus = ESTUARY_ERROR_DEVICE_LOST;
}

estuary_frame* beginFrame(estuary_viewer& v, const estuary_frame_desc* desc) {
    if (v.frame.active)
        throw usageError("estuary_begin_frame: frame " + std::to_string(v.frame.index) +
                         " has begun and not ended; call estuary_end_frame first");
    if (!v.gpuFailure.empty())
        throw Error(v.gpuFailureStatus, "estuary_begin_frame: the viewer failed earlier (" +
                                            v.gpuFailure + "); destroy it");
    const estuary_frame_desc none{};
    const estuary_frame_desc& d = desc ? *desc : none;
    if (d.flags & ~ESTUARY_FRAME_DEFER_WAIT)
        throw usageError("estuary_begin_frame: unknown flags (allowed: ESTUARY_FRAME_DEFER_WAIT)");
    if (!v.cuda && d.stream)
        throw usageError("estuary_begin_frame: a CUDA stream was given, but this viewer has no "
                         "CUDA (" +
                         v.cudaChoice + ")");
    if (!v.cuda && d.replay_key)
        throw usageError("estuary_begin_frame: replay_key needs CUDA (" + v.cudaChoice + ")");
    if (d.replay_key && !d.stream)
        throw usageError("estuary_begin_frame: replay_key needs a stream of your own (graph "
                         "capture cannot use the viewer's stream's legacy semantics)");
    startInputPoll(v);
    deliverInjected(v);
    if (v.window) prepareWindow(v);
    applyServedSize(v);
    if (v.panels.screenshotRequested) {
        v.panels.screenshotRequested = false;
        if (v.nextFrame > 0) writeNumberedScreenshot(v);
    }
    if ((v.window || v.server) && !v.gl) updateProbe(v); // served: the page's pick readout
    const uint64_t f = v.nextFrame;
    estuary_frame& frame = v.frame;
    frame = estuary_frame{};
    frame.viewer = &v;
    frame.index = f;
    frame.slot = uint32_t(f % v.slots);
    frame.entry = uint32_t(f % v.hostRing);
    frame.flags = d.flags;
    frame.replayKey = d.replay_key;
    frame.stream = v.cuda ? (d.stream ? d.stream : cudaStream(v)) : nullptr;
    collectDrawnPictures(v, f);
    beginRecord(v, f);
    FrameRecord* record = findRecord(v, f);
    if (f >= v.hostRing) {
        record->waitStartNs = hostNowNs();
        waitFrame(v, f - v.hostRing, "the frames-in-flight limit");
        record->waitEndNs = hostNowNs();
        completeFrame(v, f - v.hostRing);
    }
    v.entries[frame.entry].reads.clear();
    v.entries[frame.entry].frame = f;
    checkHandoffOrder(v);
    frame.active = true;
    if (protocolRuns(v, f)) {
        try {
            cudaBeginFrame(v, frame);
        } catch (...) {
            frame.active = false;
            throw;
        }
    }
    return &frame;
}

void endFrame(estuary_frame& frame) {
    estuary_viewer& v = *frame.viewer;
    if (!frame.active) throw usageError("estuary_end_frame: the frame has already ended");
    FrameRecord* record = findRecord(v, frame.index);
    record->endNs = hostNowNs();
    const bool cudaWait = protocolRuns(v, frame.index);
    struct Deactivate { // the frame ends whatever happens below; a failure is reported as such
        estuary_frame& frame;
        ~Deactivate() { frame.active = false; }
    } deactivate{frame};
    if (cudaWait) cudaEndFrame(v, frame);
    if (v.gl) {
        glEndFrame(v, frame);
        v.nextFrame = frame.index + 1;
        record->submitEndNs = hostNowNs();
        record->hostBusyUs = double(record->submitEndNs - record->beginNs -
                                    (record->waitEndNs - record->waitStartNs)) /
                             1000.0;
        return;
    }
    // The probe under the cursor: one texel of the picture's field, read in this frame's draw.
    const uint32_t probed = v.panels.probePanel;
    if (v.panels.probeActive && probed < v.layout.panels.size() && backgroundView(v, probed) &&
        !backgroundIs3d(v, probed)) {
        ReadRequest probe;
        probe.image = backgroundView(v, probed)->image();
        probe.offset = {v.panels.probeX, v.panels.probeY, 0};
        probe.extent = {1, 1, 1};
        probe.bytes = probe.image->texelBytes;
        v.entries[frame.entry].reads.push_back(probe);
    }
    // The buffer views' picks under the cursor, for the View panel.
    if (v.panels.pickActive)
        for (const auto& view : v.views)
            if (view->params.visible && isBufferView(*view)) {
                addPick(frame, *view, {v.panels.pickX, v.panels.pickY, kPanelPickRadius}, nullptr);
            }
    EntryState& entry = v.entries[frame.entry];
    placeReads(v, entry);
    const DrawSet set = drawSet(v, frame);
    const VkPipelineStageFlags2 waitStage = cudaWaitStage(set);
    WindowTarget window;
    if (v.window) {
        window = acquireWindowImage(v, frame.entry);
        if (window.valid && overlayWanted(v)) buildUi(v, window.extent);
    } else if (overlayWanted(v)) {
        buildUi(v, v.offscreen.image.extent);
    }
    const uint64_t key = reuseKey(v, frame, set, cudaWait);
    VkCommandBuffer cmd = entry.commands;
    if (key == 0 || key != entry.recordedKey) {
        entry.recordedKey = 0; // until the new recording is complete
        recordFrame(v, frame, cmd, set, cudaWait, waitStage, window);
        entry.recordedKey = key;
    }
    record->recordEndNs = hostNowNs();
    record->submitStartNs = hostNowNs();
    if (!holdDraw(v, frame.index, cmd, cudaWait, waitStage)) {
        try {
            submitFrame(v, frame, cmd, cudaWait, waitStage, window);
        } catch (const Error& e) {
            noteDeviceLost(v, e);
            throw;
        }
    }
    record->submitEndNs = hostNowNs();
    v.nextFrame = frame.index + 1;
    if (window.valid) presentWindowImage(v, window);
    record->hostBusyUs =
        double(record->submitEndNs - record->beginNs - (record->waitEndNs - record->waitStartNs)) /
        1000.0;
}

void waitFrame(estuary_viewer& v, uint64_t frame, const char* why) {
    if (v.gpuStuck)
        throw runtimeError(std::string("cannot wait for frame ") + std::to_string(frame) + " (" +
                           why + "): the GPU did not settle after an earlier failure (" +
                           v.gpuFailure + ")");
    if (v.gl) return glWaitEntry(v, uint32_t(frame % v.hostRing), frame, why);
    if (!v.heldDraws.empty() && frame >= v.heldDraws.front().frame) submitHeldDraws(v);
    const uint64_t timeout = frameWaitTimeoutNs(v);
    // Usually done at once. Otherwise wait in slices and look at CUDA between them: a CUDA fault
    // is reported as such at once, not as a timeout on the frame it never wrote.
    constexpr uint64_t kSliceNs = 50'000'000;
    for (uint64_t waited = 0;; waited += kSliceNs) {
        if (waitTimelineFor(v.device, v.frameTimeline, frame + 1,
                            std::min(kSliceNs, timeout - waited)))
            return;
        throwIfCudaFailed(v);
        if (timeout - waited <= kSliceNs) break;
    }
    const std::string state = waitState(v);
    const std::string message = "timed out after " + formatSeconds(timeout) +
                                " waiting for the GPU to finish frame " + std::to_string(frame) +
                                " (" + why + ")" + (state.empty() ? "" : "; " + state) +
                                "; ESTUARY_WAIT_TIMEOUT_S sets the limit for slower runs";
    // One API waits for the other: release the waits now, so the caller's own CUDA work (and
    // its stream synchronizations) can finish before it frees its memory.
    v.gpuFailure = message;
    v.gpuFailureStatus = ESTUARY_ERROR_TIMEOUT;
    (void)settleGpuWork(v);
    throw timeoutError(message);
}

void finish(estuary_viewer& v) {
    if (v.frame.active)
        throw usageError("estuary_finish: frame " + std::to_string(v.frame.index) +
                         " has begun and not ended");
    if (v.nextFrame > 0) {
        const uint64_t last = v.nextFrame - 1;
        waitFrame(v, last, "the last frame");
        const uint64_t first = last + 1 >= v.hostRing ? last + 1 - v.hostRing : 0;
        for (uint64_t f = first; f <= last; ++f)
            completeFrame(v, f);
        if (v.cuda) finishCudaStream(v, frameWaitTimeoutNs(v));
    }
    calibrateClocks(v);
    fitClocks(v);
}

void readImage(estuary_frame& frame, estuary_image* image, uint32_t level, uint32_t x, uint32_t y,
               uint32_t width, uint32_t height, uint32_t flags, void* destination) {
    const std::string what = "estuary_frame_read_image (" + image->name + ")";
    if (!destination) throw usageError(what + ": destination is NULL");
    if (flags & ~ESTUARY_READ_AFTER_DRAW)
        throw usageError(what + ": unknown flags (allowed: ESTUARY_READ_AFTER_DRAW)");
    if (level >= image->levels)
        throw usageError(what + ": level " + std::to_string(level) + " of " +
                         std::to_string(image->levels));
    const VkExtent3D e = image->regions[level].imageExtent;
    if (width == 0 || height == 0 || uint64_t(x) + width > e.width ||
        uint64_t(y) + height > e.height)
        throw usageError(what + ": region " + std::to_string(x) + "," + std::to_string(y) + " " +
                         std::to_string(width) + "x" + std::to_string(height) +
                         " is not inside level " + std::to_string(level) + " (" +
                         std::to_string(e.width) + "x" + std::to_string(e.height) + ")");
    if (frame.viewer->gl && image->kind != ESTUARY_IMAGE_2D)
        throw unsupported(what + ": the OpenGL consumer reads back only 2D images, the ones it "
                                 "draws");
    ReadRequest read;
    read.image = image;
    read.level = level;
    read.offset = {int32_t(x), int32_t(y), 0};
    read.extent = {width, height, 1};
    read.bytes = uint64_t(width) * height * image->texelBytes;
    read.afterDraw = flags & ESTUARY_READ_AFTER_DRAW;
    read.destination = destination;
    frame.viewer->entries[frame.entry].reads.push_back(read);
}

void readBuffer(estuary_frame& frame, estuary_buffer* buffer, uint64_t offset, uint64_t bytes,
                uint32_t flags, void* destination) {
    const std::string what = "estuary_frame_read_buffer (" + buffer->name + ")";
    if (!destination) throw usageError(what + ": destination is NULL");
    if (flags & ~ESTUARY_READ_AFTER_DRAW)
        throw usageError(what + ": unknown flags (allowed: ESTUARY_READ_AFTER_DRAW)");
    if (bytes == 0 || offset > buffer->size || bytes > buffer->size - offset)
        throw usageError(what + ": bytes [" + std::to_string(offset) + ", " +
                         std::to_string(offset + bytes) + ") are not inside its " +
                         std::to_string(buffer->size) + " bytes");
    if (frame.viewer->gl) throw unsupported(what + ": the OpenGL consumer reads no buffers back");
    ReadRequest read;
    read.buffer = buffer;
    read.bufferOffset = offset;
    read.bytes = bytes;
    read.afterDraw = flags & ESTUARY_READ_AFTER_DRAW;
    read.destination = destination;
    frame.viewer->entries[frame.entry].reads.push_back(read);
}

void pickView(estuary_frame& frame, estuary_view* view, float x, float y, float radius,
              estuary_pick* result) {
    const std::string what = "estuary_frame_pick (view '" + view->label + "')";
    if (!result) throw usageError(what + ": result is NULL");
    if (!isBufferView(*view))
        throw usageError(what + ": a " + std::string(viewKind(*view)) +
                         " view has no elements to pick; picking reads points, markers, lines, "
                         "glyph and mesh views (a field's texels: estuary_frame_read_image)");
    if (!std::isfinite(x) || !std::isfinite(y))
        throw usageError(what + ": the point (" + std::to_string(x) + ", " + std::to_string(y) +
                         ") must be finite (framebuffer pixels)");
    if (!(radius >= 0.0f && radius <= ESTUARY_PICK_RADIUS_MAX))
        throw usageError(what + ": radius " + std::to_string(radius) + " pixels is outside 0.." +
                         std::to_string(int(ESTUARY_PICK_RADIUS_MAX)));
    if (frame.viewer->gl)
        throw unsupported(what + ": the OpenGL consumer does not pick (it draws no buffer views)");
    addPick(frame, *view, {x, y, radius}, result);
}

estuary_pick pickResult(const uint8_t* state) {
    PickState s;
    std::memcpy(&s, state, sizeof(s));
    estuary_pick pick{};
    if (s.winner == 0) return pick;
    pick.hit = 1;
    pick.element = s.winner - 1;
    pick.vertex = s.vertex;
    pick.distance = s.distance;
    pick.value = s.value;
    pick.position[0] = s.x;
    pick.position[1] = s.y;
    pick.position[2] = s.z;
    return pick;
}

void recordReads(estuary_viewer& v, VkCommandBuffer cmd, EntryState& entry, uint64_t frame,
                 bool afterDraw, VkExtent2D extent) {
    bool any = false;
    for (const ReadRequest& read : entry.reads) {
        if (read.afterDraw != afterDraw) continue;
        if (read.pick) { // the view as this frame draws it, if it does
            // A view is found only in its panel, in the panel's pixels, as it was drawn there.
            const estuary_view* view = read.pickView;
            if (!view || !view->params.visible || extent.width == 0) continue;
            if (read.pickPanel != view->params.panel) continue;
            const VkRect2D panel = plotRect(v, read.pickPanel);
            PickQuery query = read.pickQuery;
            query.x -= float(panel.offset.x);
            query.y -= float(panel.offset.y);
            any = true;
            recordPick(v, *view, cmd, uint32_t(frame % v.hostRing),
                       panelImages(v) ? panel.extent : extent, query, entry.readback.handle,
                       read.stagingOffset);
            continue;
        }
        any = true;
        if (read.buffer) {
            const VkBufferCopy region{read.bufferOffset, read.stagingOffset, read.bytes};
            vkCmdCopyBuffer(cmd, vulkanBuffer(*read.buffer, copyOf(*read.buffer, frame)),
                            entry.readback.handle, 1, &region);
            continue;
        }
        // Images are SHADER_READ_ONLY between the acquire and the release: copy in between.
        const VkImage image = vulkanImage(*read.image, copyOf(*read.image, frame)).handle;
        ImageTransition toCopy;
        toCopy.oldLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
        toCopy.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
        toCopy.srcStage = VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                          VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT |
                          VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT;
        toCopy.dstStage = VK_PIPELINE_STAGE_2_COPY_BIT;
        toCopy.dstAccess = VK_ACCESS_2_TRANSFER_READ_BIT;
        toCopy.baseMip = read.level;
        toCopy.mipCount = 1;
        recordImageBarrier(cmd, image, toCopy);
        VkBufferImageCopy region{};
        region.bufferOffset = read.stagingOffset;
        region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, read.level, 0, 1};
        region.imageOffset = read.offset;
        region.imageExtent = read.extent;
        vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                               entry.readback.handle, 1, &region);
        ImageTransition back = toCopy;
        back.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
        back.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
        back.srcStage = VK_PIPELINE_STAGE_2_COPY_BIT;
        back.srcAccess = VK_ACCESS_2_NONE;
        back.dstStage = VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                        VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT |
                        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT;
        back.dstAccess = VK_ACCESS_2_SHADER_SAMPLED_READ_BIT | VK_ACCESS_2_TRANSFER_READ_BIT;
        recordImageBarrier(cmd, image, back);
    }
    if (!any) return;
    recordMemoryBarrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
}

} // namespace estuary::lib
