#include "frame.h"
#include "gl_frames.h"
#include "fault_injection.h"
#include "profile_ranges.h"
#include "vk_check.h"
#include "watchdog.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace estuary {
namespace {

// GPU times of `finished` (which used host-ring entry `entry`) into the history: called once the
// frames-in-flight wait has shown that frame is done, so nothing here blocks.
void collectFinishedTimes(Session& session, uint64_t finished, uint32_t entry) {
    // finishFrames (end of run, grid change) may have collected it already.
    if (finished < session.collectedFrames) return;
    session.collectedFrames = finished + 1;
    const SimBackend::SlotTimes sim = session.backend->finishedFrameTimes(finished);
    double renderMs = kNotMeasured;
    double gapMs = kNotMeasured;
    double intervalMs = kNotMeasured;
    uint64_t drawTicks[2] = {};
    if (session.timestamps) {
        uint64_t ticks[2] = {};
        const VkResult r =
            vkGetQueryPoolResults(session.device.handle, session.timestamps, 2 * entry, 2,
                                  sizeof(ticks), ticks, sizeof(uint64_t), VK_QUERY_RESULT_64_BIT);
        if (r == VK_SUCCESS) {
            drawTicks[0] = ticks[0];
            drawTicks[1] = ticks[1];
            const double msPerTick = double(session.device.properties.limits.timestampPeriod) / 1e6;
            renderMs = double(ticks[1] - ticks[0]) * msPerTick;
            // Queue idle between the previous draw's end and this one's start: waiting for the
            // simulation's signal (and, in serialized runs, for the host).
            if (session.lastDrawEndTicks && ticks[0] >= session.lastDrawEndTicks) {
                gapMs = double(ticks[0] - session.lastDrawEndTicks) * msPerTick;
                intervalMs = double(ticks[1] - session.lastDrawEndTicks) * msPerTick;
            }
            session.lastDrawEndTicks = ticks[1];
        } else if (r != VK_NOT_READY) {
            VK_CHECK(r);
        }
    }
    if (FrameTiming* t = session.history.find(finished)) {
        t->simMs = sim.simMs;
        t->fromGraph = sim.fromGraph;
        t->renderMs = renderMs;
        t->gpuIntervalMs = intervalMs;
        if (!std::isnan(gapMs)) t->waitMs = gapMs + (std::isnan(sim.waitMs) ? 0.0 : sim.waitMs);
        t->marks.drawStartTicks = drawTicks[0];
        t->marks.drawEndTicks = drawTicks[1];
        t->marks.simStartUs = sim.startUs;
        t->marks.simStepsEndUs = sim.stepsEndUs;
        t->marks.simWriteStartUs = sim.writeStartUs;
        t->marks.simEndUs = sim.endUs;
    }
}

// Debug-utils labels around commands, so that Nsight Graphics and RenderDoc show frames and their
// parts by name; nothing without VK_EXT_debug_utils. Begin and end pair up within one command
// buffer.
void beginLabel(const Device& device, VkCommandBuffer cmd, const char* name) {
    if (!device.debugUtils || !vkCmdBeginDebugUtilsLabelEXT) return;
    VkDebugUtilsLabelEXT label{VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
    label.pLabelName = name;
    vkCmdBeginDebugUtilsLabelEXT(cmd, &label);
}
void endLabel(const Device& device, VkCommandBuffer cmd) {
    if (device.debugUtils && vkCmdEndDebugUtilsLabelEXT) vkCmdEndDebugUtilsLabelEXT(cmd);
}

// The host's wait for the GPU to finish `frame`, bounded; a timeout names the frame and what each
// API has done, since a hang is usually one API waiting for the other.
void waitForFrame(Session& session, uint64_t frame, const char* why) {
    const uint64_t timeout = frameWaitTimeoutNs(session);
    // Usually done at once. Otherwise wait in slices and look at the simulation between them: a
    // CUDA fault is reported as such at once, not as a timeout on the frame it never wrote.
    constexpr uint64_t kSliceNs = 50'000'000;
    for (uint64_t waited = 0;; waited += kSliceNs) {
        if (waitTimelineFor(session.device, session.frameTimeline, frame + 1,
                            std::min(kSliceNs, timeout - waited)))
            return;
        session.backend->throwIfFailed();
        if (timeout - waited <= kSliceNs) break;
    }
    const std::string state = session.backend->waitState();
    throw runtimeError("timed out after " + formatSeconds(timeout) +
                       " waiting for the GPU to finish frame " + std::to_string(frame) + " (" +
                       why + ")" + (state.empty() ? "" : "; " + state) +
                       "; ESTUARY_WAIT_TIMEOUT_S sets the limit for slower runs");
}

} // namespace

uint64_t frameWaitTimeoutNs(const Session& session) {
    if (const auto set = gpuWaitTimeoutOverrideNs()) return *set;
    const uint64_t stretched =
        session.slowestFrameNs > UINT64_MAX / 50 ? UINT64_MAX : 50 * session.slowestFrameNs;
    return std::max(gpuWaitTimeoutNs(), stretched);
}

void beginFrameTiming(Session& session, uint64_t frame) {
    const auto start = std::chrono::steady_clock::now();
    if (FrameTiming* previous = frame > 0 ? session.history.find(frame - 1) : nullptr)
        previous->cpuMs =
            std::chrono::duration<double, std::milli>(start - session.lastFrameStart).count();
    if (frame > 0)
        session.slowestFrameNs = std::max(
            session.slowestFrameNs, uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                 start - session.lastFrameStart)
                                                 .count()));
    session.lastFrameStart = start;
    FrameTiming timing{frame};
    timing.marks.frameStart = hostNs(start);
    session.history.push(timing);
}

void endFrameTiming(Session& session, uint64_t last) {
    if (FrameTiming* t = session.history.find(last))
        t->cpuMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                             session.lastFrameStart)
                       .count();
}

void drawFrame(Session& session, uint64_t frame, const FrameTarget& target) {
    if (session.gl)
        return drawFrameGl(session, frame, target.glFramebuffer, target.extent, target.inspectGl);
    const WatchdogScope watch("frame", frame, frameWaitTimeoutNs(session));
    const FrameProfileRange frameRange(frame);
    SimBackend& backend = *session.backend;
    const uint32_t slot = uint32_t(frame % backend.slotCount()); // field image
    const uint32_t ring = backend.hostRingSize();
    const uint32_t entry = uint32_t(frame % ring); // command buffer, timestamps
    beginFrameTiming(session, frame);
    // The history keeps far more frames than are in flight: this entry outlives the frame.
    FrameMarks& marks = session.history.find(frame)->marks;

    // 1. The only host wait: the frame that last used this command buffer (and, for the CPU
    //    backend, this staging buffer) must be drawn. Image reuse is guarded on the GPU.
    if (frame >= ring) {
        {
            const ProfileRange range("frames-in-flight wait");
            marks.waitStart = hostNowNs();
            waitForFrame(session, frame - ring, "the frames-in-flight limit");
            marks.waitEnd = hostNowNs();
        }
        collectFinishedTimes(session, frame - ring, entry);
    }

    // 2. Simulate and write the outputs; the CUDA backend signals its timeline on the GPU.
    marks.simulateStart = hostNowNs();
    {
        const ProfileRange range("simulate");
        backend.simulate(frame, session.params, session.stepsPerFrame);
    }
    marks.simulateEnd = hostNowNs();

    // 3. Record: take the field, draw it, hand it back; or, for a target that allows it, submit
    //    again what this command buffer already holds when it was recorded for the same slot,
    //    view and target.
    VkCommandBuffer cmd = session.commands[entry];
    const bool waitsOnSimulation = backend.drawWait(frame).has_value();
    updatePointView(session);
    Session::RecordedDraw& recorded = session.recorded[entry];
    const Session::RecordedDraw wanted{true, slot, waitsOnSimulation, target.repeatKey.value_or(0),
                                       session.view};
    if (!target.repeatKey || !(recorded == wanted)) {
        const ProfileRange recordRange("record");
        recorded = {}; // until the new recording is complete
        VK_CHECK(vkResetCommandBuffer(cmd, 0));
        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        begin.flags = target.repeatKey ? 0 : VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
        // Named by frame, or by ring entry where the buffer is submitted again for later frames.
        char name[48];
        if (target.repeatKey)
            std::snprintf(name, sizeof(name), "frame, ring entry %u", entry);
        else
            std::snprintf(name, sizeof(name), "frame %llu", static_cast<unsigned long long>(frame));
        beginLabel(session.device, cmd, name);
        // The draw's start. Where the submission waits on the simulation (CUDA), the wait holds
        // back only the stages that read its outputs, so a timestamp at the top of the command
        // buffer would be written before the wait resolves. It is written after the acquire
        // barriers, at the compute-shader stage: inside the wait's scope and the barriers'
        // destination scope, so not before the outputs are Vulkan's (an implementation may write
        // a timestamp at a later stage than asked, never an earlier one). Without a wait (staged
        // backends) the upload in recordBeforeDraw is part of the draw, the cost host-copy pays,
        // and the start stays at the top.
        if (session.timestamps) {
            vkCmdResetQueryPool(cmd, session.timestamps, 2 * entry, 2);
            if (!waitsOnSimulation)
                vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, session.timestamps,
                                     2 * entry);
        }
        beginLabel(session.device, cmd, "acquire");
        backend.recordBeforeDraw(cmd, frame);
        endLabel(session.device, cmd);
        if (session.timestamps && waitsOnSimulation)
            vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, session.timestamps,
                                 2 * entry);
        if (target.inspectOutputs) target.inspectOutputs(cmd, backend, slot, false);
        beginLabel(session.device, cmd, "draw");
        target.begin(cmd);
        recordDraw(session.renderer, cmd, slot, target.view, target.extent, session.view,
                   target.image);
        if (target.overlay) target.overlay(cmd);
        target.end(cmd);
        endLabel(session.device, cmd);
        if (target.inspectOutputs) target.inspectOutputs(cmd, backend, slot, true);
        beginLabel(session.device, cmd, "release");
        backend.recordAfterDraw(cmd, frame);
        endLabel(session.device, cmd);
        if (session.timestamps)
            vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, session.timestamps,
                                 2 * entry + 1);
        endLabel(session.device, cmd); // the frame
        VK_CHECK(vkEndCommandBuffer(cmd));
        recorded = target.repeatKey ? wanted : Session::RecordedDraw{};
    }
    marks.recordEnd = hostNowNs();

    // 4. Submit: wait on the GPU for the simulation (and the swapchain), signal frame + 1.
    const ProfileRange submitRange("submit");
    VkSemaphoreSubmitInfo waits[3];
    uint32_t waitCount = 0;
    if (auto simWait = backend.drawWait(frame)) waits[waitCount++] = *simWait;
    if (faultPlan().vulkanStall == frame) {
        session.stallSemaphore = createTimelineSemaphore(session.device, false, "stall (fault)");
        VkSemaphoreSubmitInfo never{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
        never.semaphore = session.stallSemaphore;
        never.value = 1;
        never.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
        waits[waitCount++] = never;
    }
    if (target.waitBinary) {
        VkSemaphoreSubmitInfo w{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
        w.semaphore = target.waitBinary;
        w.stageMask = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
        waits[waitCount++] = w;
    }
    VkSemaphoreSubmitInfo signals[3];
    uint32_t signalCount = 0;
    VkSemaphoreSubmitInfo drawn{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    drawn.semaphore = session.frameTimeline;
    drawn.value = frame + 1;
    drawn.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    signals[signalCount++] = drawn;
    if (auto simSignal = backend.drawSignal(frame)) signals[signalCount++] = *simSignal;
    if (target.signalBinary) {
        VkSemaphoreSubmitInfo s{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
        s.semaphore = target.signalBinary;
        s.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
        signals[signalCount++] = s;
    }
    if (faultPlan().deviceLost == frame)
        throwVkFailure(VK_ERROR_DEVICE_LOST, "vkQueueSubmit2 (ESTUARY_FAULT=device-lost)", __FILE__,
                       __LINE__);
    marks.submitStart = hostNowNs();
    submitCommands(session.device, cmd, {waits, waitCount}, {signals, signalCount});
    marks.submitEnd = hostNowNs();
    session.nextFrame = frame + 1;
    // The host's work on this frame: all of drawFrame but the frames-in-flight wait.
    if (FrameTiming* t = session.history.find(frame))
        t->hostBusyUs =
            double(marks.submitEnd - marks.frameStart - (marks.waitEnd - marks.waitStart)) / 1000.0;
}

void waitFrameDrawn(Session& session, uint64_t frame) {
    if (session.gl) return waitFrameDrawnGl(session, frame);
    const WatchdogScope watch("waiting for frame", frame, frameWaitTimeoutNs(session));
    waitForFrame(session, frame, "a frame to be drawn");
}

void finishFrames(Session& session) {
    if (session.gl) return finishFramesGl(session);
    if (session.nextFrame == 0) return;
    const uint64_t last = session.nextFrame - 1;
    const WatchdogScope watch("finishing frame", last, frameWaitTimeoutNs(session));
    waitFrameDrawn(session, last);
    const uint32_t ring = session.backend->hostRingSize();
    const uint64_t first = last + 1 >= ring ? last + 1 - ring : 0;
    for (uint64_t f = first; f <= last; ++f)
        collectFinishedTimes(session, f, uint32_t(f % ring));
    endFrameTiming(session, last);
}

} // namespace estuary
