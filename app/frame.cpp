#include "frame.h"
#include "gl_frames.h"
#include "fault_injection.h"
#include "vk_check.h"
#include "watchdog.h"

#include <algorithm>
#include <chrono>

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
    if (session.timestamps) {
        uint64_t ticks[2] = {};
        const VkResult r =
            vkGetQueryPoolResults(session.device.handle, session.timestamps, 2 * entry, 2,
                                  sizeof(ticks), ticks, sizeof(uint64_t), VK_QUERY_RESULT_64_BIT);
        if (r == VK_SUCCESS) {
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
        t->renderMs = renderMs;
        t->gpuIntervalMs = intervalMs;
        if (!std::isnan(gapMs)) t->waitMs = gapMs + (std::isnan(sim.waitMs) ? 0.0 : sim.waitMs);
    }
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
    session.history.push(FrameTiming{frame});
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
    SimBackend& backend = *session.backend;
    const uint32_t slot = uint32_t(frame % backend.slotCount()); // field image
    const uint32_t ring = backend.hostRingSize();
    const uint32_t entry = uint32_t(frame % ring); // command buffer, timestamps
    beginFrameTiming(session, frame);

    // 1. The only host wait: the frame that last used this command buffer (and, for the CPU
    //    backend, this staging buffer) must be drawn. Image reuse is guarded on the GPU.
    if (frame >= ring) {
        waitForFrame(session, frame - ring, "the frames-in-flight limit");
        collectFinishedTimes(session, frame - ring, entry);
    }

    // 2. Simulate and write the outputs; the CUDA backend signals its timeline on the GPU.
    backend.simulate(frame, session.params, session.stepsPerFrame);

    // 3. Record: take the field, draw it, hand it back.
    VkCommandBuffer cmd = session.commands[entry];
    VK_CHECK(vkResetCommandBuffer(cmd, 0));
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
    if (session.timestamps) {
        vkCmdResetQueryPool(cmd, session.timestamps, 2 * entry, 2);
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, session.timestamps,
                             2 * entry);
    }
    backend.recordBeforeDraw(cmd, frame);
    if (target.inspectOutputs) target.inspectOutputs(cmd, backend, slot, false);
    target.begin(cmd);
    updatePointView(session);
    recordDraw(session.renderer, cmd, slot, target.view, target.extent, session.view, target.image);
    if (target.overlay) target.overlay(cmd);
    target.end(cmd);
    if (target.inspectOutputs) target.inspectOutputs(cmd, backend, slot, true);
    backend.recordAfterDraw(cmd, frame);
    if (session.timestamps)
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, session.timestamps,
                             2 * entry + 1);
    VK_CHECK(vkEndCommandBuffer(cmd));

    // 4. Submit: wait on the GPU for the simulation (and the swapchain), signal frame + 1.
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
    submitCommands(session.device, cmd, {waits, waitCount}, {signals, signalCount});
    session.nextFrame = frame + 1;
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
