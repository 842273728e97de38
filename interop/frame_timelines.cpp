#include "estuary/interop/frame_timelines.h"
#include "cuda_check.h"
#include "gpu_wait.h"
#include "vk_calls.h"

#include <chrono>
#include <string>
#include <thread>

namespace estuary::interop {

FrameTimelines createFrameTimelines(const Context& context, uint32_t slots, const char* name,
                                    bool binaryHandoff) {
    if (slots == 0) throw runtimeError("createFrameTimelines: slots must be at least 1");
    FrameTimelines t;
    t.slots = slots;
    const std::string base = name;
    try { // what was made so far is released if a later one fails
        t.written = createSharedTimeline(context, (base + ": written (CUDA signals)").c_str());
        t.released = createSharedTimeline(context, (base + ": released (Vulkan signals)").c_str());
        CUDA_CHECK(cudaEventCreateWithFlags(&t.lastSignal, cudaEventDisableTiming));
        for (uint32_t slot = 0; binaryHandoff && slot < slots; ++slot) {
            const std::string s = ", slot " + std::to_string(slot);
            t.writtenBinary.push_back(
                createSharedBinary(context, (base + ": written (binary)" + s).c_str()));
            t.releasedBinary.push_back(
                createSharedBinary(context, (base + ": released (binary)" + s).c_str()));
        }
    } catch (...) {
        destroyFrameTimelines(context, t);
        throw;
    }
    return t;
}

void destroyFrameTimelines(const Context& context, FrameTimelines& t) {
    if (t.lastSignal) (void)cudaEventDestroy(t.lastSignal);
    for (SharedBinary& b : t.releasedBinary)
        destroySharedBinary(context, b);
    for (SharedBinary& b : t.writtenBinary)
        destroySharedBinary(context, b);
    destroySharedTimeline(context, t.released);
    destroySharedTimeline(context, t.written);
    t = FrameTimelines{};
}

void cudaBeginFrame(FrameTimelines& t, uint64_t frame, cudaStream_t stream) {
    if (!t.firstFrame) t.firstFrame = frame;
    // The timelines start at 0 whatever the first frame's number; frames before first + slots
    // have no earlier user of their slot, and waiting for one would deadlock.
    if (frame < *t.firstFrame + t.slots) return;
    if (!t.releasedBinary.empty())
        cudaWaitBinary(t.releasedBinary[slotOf(t, frame)], stream);
    else
        cudaWaitTimeline(t.released, slotWaitValue(t, frame), stream);
}

uint64_t batchLast(const FrameTimelines& t, uint64_t frame) {
    if (t.batch <= 1 || !t.firstFrame || frame < *t.firstFrame) return frame;
    return *t.firstFrame + ((frame - *t.firstFrame) / t.batch + 1) * t.batch - 1;
}

uint64_t slotWaitValue(const FrameTimelines& t, uint64_t frame) {
    // batch <= slots: the frame waited for is before the batch, so its draw was submitted.
    return batchLast(t, frame) + 1 - t.slots;
}

void cudaOrderAfterLastSignal(FrameTimelines& t, cudaStream_t stream) {
    if (!t.anySignal || t.lastSignalStream == stream) return; // one stream keeps its own order
    CUDA_CHECK(cudaStreamWaitEvent(stream, t.lastSignal, 0));
}

void cudaSignalWritten(const FrameTimelines& t, uint64_t frame, cudaStream_t stream) {
    cudaSignalTimeline(t.written, frame + 1, stream);
    if (!t.writtenBinary.empty()) cudaSignalBinary(t.writtenBinary[slotOf(t, frame)], stream);
}

void cudaNoteSignal(FrameTimelines& t, cudaStream_t stream) {
    CUDA_CHECK(cudaEventRecord(t.lastSignal, stream));
    t.lastSignalStream = stream;
    t.anySignal = true;
}

void cudaEndFrame(FrameTimelines& t, uint64_t frame, cudaStream_t stream) {
    cudaOrderAfterLastSignal(t, stream);
    cudaSignalWritten(t, frame, stream);
    cudaNoteSignal(t, stream);
}

void cudaWaitAllDrawn(FrameTimelines& t, uint64_t frame, cudaStream_t stream) {
    // A binary wait consumes its signal, which cudaBeginFrame of a later frame waits for.
    if (!t.releasedBinary.empty())
        throw runtimeError("cudaWaitAllDrawn needs the timeline hand-off: with the binary one, "
                           "each release is waited for once, by cudaBeginFrame");
    if (!t.firstFrame) t.firstFrame = frame;
    // released = f + 1 once frame f is drawn, and frames are drawn in order.
    if (frame > *t.firstFrame) cudaWaitTimeline(t.released, frame, stream);
}

VkSemaphoreSubmitInfo drawWaitInfo(const FrameTimelines& t, uint64_t frame,
                                   VkPipelineStageFlags2 waitStage) {
    VkSemaphoreSubmitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    wait.semaphore = t.written.semaphore;
    wait.value = frame + 1;
    wait.stageMask = waitStage;
    return wait;
}

VkSemaphoreSubmitInfo drawSignalInfo(const FrameTimelines& t, uint64_t frame) {
    VkSemaphoreSubmitInfo signal{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    signal.semaphore = t.released.semaphore;
    signal.value = frame + 1;
    // Signalled after everything in the submission, the release barriers included.
    signal.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    return signal;
}

bool cudaStreamSettled(cudaStream_t stream, uint64_t timeoutNs) {
    const auto start = std::chrono::steady_clock::now();
    while (true) {
        // cudaStreamQuery does not block; anything but "not ready" means nothing more will run.
        if (cudaStreamQuery(stream) != cudaErrorNotReady) return true;
        const auto waited = std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::steady_clock::now() - start);
        if (uint64_t(waited.count()) >= timeoutNs) return false;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
}

void throwIfCudaStreamFailed(cudaStream_t stream, const char* what) {
    const cudaError_t state = cudaStreamQuery(stream);
    if (state != cudaSuccess && state != cudaErrorNotReady)
        throw cudaFailure(state, what, __FILE__, __LINE__);
}

void finishCudaStream(cudaStream_t stream, uint64_t timeoutNs, std::string_view what) {
    if (!cudaStreamSettled(stream, timeoutNs))
        throw timeoutError("timed out after " + formatSeconds(timeoutNs) + " waiting for " +
                           std::string(what));
    throwIfCudaStreamFailed(stream, "the CUDA stream");
}

namespace {

// Past every value either side may still wait for: a frame's waits reach at most nextFrame + 1.
uint64_t pastEveryWait(uint64_t nextFrame, uint32_t slots) {
    return nextFrame + slots + 1;
}

// Signals `semaphore` (to `value`, a timeline) from a fresh stream, one that no stuck work queues
// behind. False when CUDA cannot (its context is broken by a sticky error) or the signal does not
// complete within `timeoutNs`.
bool signalFromRescueStream(cudaExternalSemaphore_t semaphore, uint64_t value, uint64_t timeoutNs) {
    cudaStream_t rescue = nullptr;
    if (cudaStreamCreateWithFlags(&rescue, cudaStreamNonBlocking) != cudaSuccess) return false;
    cudaExternalSemaphoreSignalParams params{};
    params.params.fence.value = value;
    const bool queued =
        cudaSignalExternalSemaphoresAsync(&semaphore, &params, 1, rescue) == cudaSuccess;
    const bool done = queued && cudaStreamSettled(rescue, timeoutNs) &&
                      cudaStreamQuery(rescue) == cudaSuccess; // its only work is that signal
    (void)cudaStreamDestroy(rescue);
    return done;
}

} // namespace

bool releaseCudaWaits(FrameTimelines& t, uint64_t nextFrame, uint64_t timeoutNs) {
    // The binary hand-off: a wait on a slot's semaphore passes with one more signal; the slots
    // nobody waits on are only destroyed after this.
    for (const SharedBinary& b : t.releasedBinary)
        if (!signalFromRescueStream(b.cuda, 0, timeoutNs)) return false;
    return signalFromRescueStream(t.released.cuda, pastEveryWait(nextFrame, t.slots), timeoutNs);
}

bool releaseVulkanWaits(FrameTimelines& t, uint64_t nextFrame, uint64_t timeoutNs) {
    // From CUDA, not vkSignalSemaphore: `written` is CUDA's to signal, and a host signal while
    // Vulkan waits on it trips the validation layer (VUID-VkSemaphoreSignalInfo-value-03259; the
    // layer cannot see CUDA's side). The value is past anything CUDA wrote: nextFrame at most.
    for (const SharedBinary& b : t.writtenBinary)
        if (!signalFromRescueStream(b.cuda, 0, timeoutNs)) return false;
    return signalFromRescueStream(t.written.cuda, pastEveryWait(nextFrame, t.slots), timeoutNs);
}

TimelineValues readTimelines(const Context& context, const FrameTimelines& t, bool withReleased) {
    TimelineValues values;
    // Also for messages about a lost device: a value that cannot be read stays 0.
    const VkDevice device = context.vulkan.device;
    (void)context.fn->vkGetSemaphoreCounterValue(device, t.written.semaphore, &values.written);
    if (withReleased)
        (void)context.fn->vkGetSemaphoreCounterValue(device, t.released.semaphore,
                                                     &values.released);
    return values;
}

std::string describeTimelines(const Context& context, const FrameTimelines& t) {
    const auto [written, released] = readTimelines(context, t);
    const auto frame = [](uint64_t value) {
        return value == 0 ? std::string("no frame yet") : "frame " + std::to_string(value - 1);
    };
    return "CUDA has written up to " + frame(written) + ", Vulkan has released up to " +
           frame(released);
}

} // namespace estuary::interop
