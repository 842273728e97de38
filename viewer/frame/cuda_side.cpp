// The viewer's CUDA side (cuda_side.h): interop's FrameTimelines and rings, the frame's wait and
// signal on the user's stream, events for its times, and its CUDA graph. Per frame, on the frame's
// stream:
//   start → [the user's own work] → waitStart → wait (released ≥ f + 1 − slots) → waitEnd →
//   [the user's writes into the slot] → end → signal (written = f + 1)
// With a replay key, that whole sequence is captured once per ring entry and key and replayed with
// one launch, only the two semaphore values set per frame.
#include "cuda_side.h"
#include "cuda_check.h"
#include "vk_check.h"

#include "estuary/interop/buffer_ring.h"
#include "estuary/interop/cuda_devices.h"
#include "estuary/interop/device_match.h"
#include "estuary/interop/frame_timelines.h"
#include "estuary/interop/image_ring.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <thread>

namespace estuary::lib {

struct CudaImageRing {
    interop::ImageRing ring;
};
struct CudaBufferRing {
    interop::BufferRing ring;
};

namespace {

// The one wait and the one signal node of a captured frame, and their semaphores.
struct CapturedFrame {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    cudaGraphNode_t waitNode = nullptr, signalNode = nullptr;
    cudaExternalSemaphore_t waitSemaphore = nullptr, signalSemaphore = nullptr;
    uint64_t key = 0;
    uint32_t slot = 0;

    void release() {
        if (exec) (void)cudaGraphExecDestroy(exec);
        if (graph) (void)cudaGraphDestroy(graph);
        *this = CapturedFrame{};
    }
};

struct EntryEvents {
    cudaEvent_t start = nullptr, waitStart = nullptr, waitEnd = nullptr, end = nullptr;
    bool used = false, fromGraph = false;
};

// Whether the graph holds exactly one wait and one signal of one semaphore each (what a frame
// enqueues), noting them in `frame`.
bool findSemaphoreNodes(CapturedFrame& frame) {
    size_t count = 0;
    CUDA_CHECK(cudaGraphGetNodes(frame.graph, nullptr, &count));
    std::vector<cudaGraphNode_t> nodes(count);
    CUDA_CHECK(cudaGraphGetNodes(frame.graph, nodes.data(), &count));
    int waits = 0, signals = 0;
    for (cudaGraphNode_t node : nodes) {
        cudaGraphNodeType type{};
        CUDA_CHECK(cudaGraphNodeGetType(node, &type));
        if (type == cudaGraphNodeTypeExtSemaphoreWait) {
            cudaExternalSemaphoreWaitNodeParams p{};
            CUDA_CHECK(cudaGraphExternalSemaphoresWaitNodeGetParams(node, &p));
            waits += p.numExtSems == 1 ? 1 : 2;
            frame.waitNode = node;
            if (p.numExtSems >= 1) frame.waitSemaphore = p.extSemArray[0];
        } else if (type == cudaGraphNodeTypeExtSemaphoreSignal) {
            cudaExternalSemaphoreSignalNodeParams p{};
            CUDA_CHECK(cudaGraphExternalSemaphoresSignalNodeGetParams(node, &p));
            signals += p.numExtSems == 1 ? 1 : 2;
            frame.signalNode = node;
            if (p.numExtSems >= 1) frame.signalSemaphore = p.extSemArray[0];
        }
    }
    return waits == 1 && signals == 1;
}

void setSemaphoreValues(const CapturedFrame& c, uint64_t waitValue, uint64_t signalValue) {
    cudaExternalSemaphoreWaitParams wait{};
    wait.params.fence.value = waitValue;
    cudaExternalSemaphore_t waitSemaphore = c.waitSemaphore;
    const cudaExternalSemaphoreWaitNodeParams waitNode{&waitSemaphore, &wait, 1};
    CUDA_CHECK(cudaGraphExecExternalSemaphoresWaitNodeSetParams(c.exec, c.waitNode, &waitNode));
    cudaExternalSemaphoreSignalParams signal{};
    signal.params.fence.value = signalValue;
    cudaExternalSemaphore_t signalSemaphore = c.signalSemaphore;
    const cudaExternalSemaphoreSignalNodeParams signalNode{&signalSemaphore, &signal, 1};
    CUDA_CHECK(
        cudaGraphExecExternalSemaphoresSignalNodeSetParams(c.exec, c.signalNode, &signalNode));
}

cudaStream_t streamOf(const estuary_frame& frame) {
    return static_cast<cudaStream_t>(frame.stream);
}

} // namespace

struct CudaSide {
    int ordinal = -1;
    cudaStream_t stream = nullptr;
    interop::FrameTimelines timelines;
    std::vector<EntryEvents> events;
    std::vector<CapturedFrame> graphs; // per host-ring entry
    std::vector<uint64_t> unreplayableKeys;
    cudaStream_t clockStream = nullptr;
    cudaEvent_t clockReference = nullptr, clockProbe = nullptr;
    cudaEvent_t lastEnd = nullptr; // the end event of the last frame ended

    void release(const interop::Context& context) {
        for (CapturedFrame& g : graphs)
            g.release();
        graphs.clear();
        for (EntryEvents& e : events)
            for (cudaEvent_t ev : {e.start, e.waitStart, e.waitEnd, e.end})
                if (ev) (void)cudaEventDestroy(ev);
        events.clear();
        for (cudaEvent_t* ev : {&clockReference, &clockProbe})
            if (*ev) (void)cudaEventDestroy(std::exchange(*ev, nullptr));
        if (clockStream) (void)cudaStreamDestroy(std::exchange(clockStream, nullptr));
        interop::destroyFrameTimelines(context, timelines);
        if (stream) (void)cudaStreamDestroy(std::exchange(stream, nullptr));
    }
};

bool cudaBuilt() {
    return true;
}

namespace {
bool currentCudaDevice(int& device) {
    return cudaGetDevice(&device) == cudaSuccess;
}
bool makeCudaDeviceCurrent(int device) {
    return cudaSetDevice(device) == cudaSuccess;
}
} // namespace

CudaDeviceScope::CudaDeviceScope(const estuary_viewer* viewer)
    : scope_({currentCudaDevice, makeCudaDeviceCurrent},
             viewer && viewer->cuda ? viewer->cudaDevice : -1) {}

void Deleter::operator()(CudaImageRing* p) const {
    delete p;
}
void Deleter::operator()(CudaBufferRing* p) const {
    delete p;
}
void Deleter::operator()(CudaSide* p) const {
    delete p;
}

std::vector<CudaCandidate> cudaCandidates(const estuary_viewer& v, int requested,
                                          std::string& problem) {
    const interop::CudaDeviceList cuda = interop::listCudaDevices();
    if (!cuda.problem.empty()) {
        problem = cuda.problem;
        return {};
    }
    std::vector<CudaCandidate> out;
    try {
        const auto vulkan = interop::listVulkanDevices(v.instance.handle, vkGetInstanceProcAddr);
        for (const interop::DevicePair& pair :
             interop::matchDevices(vulkan, cuda.devices, requested))
            out.push_back({pair.cuda.ordinal, pair.cuda.name, pair.vulkan.handle,
                           "CUDA device " + std::to_string(pair.cuda.ordinal) + " (" +
                               pair.cuda.name + ") is Vulkan device " + pair.vulkan.name +
                               " (same UUID " + interop::formatUuid(pair.vulkan.uuid.data()) +
                               ")"});
    } catch (const Error& e) {
        problem = e.what();
    }
    return out;
}

void openCuda(estuary_viewer& v, int ordinal, bool binaryHandoff) {
    Owned<CudaSide> side(new CudaSide);
    side->ordinal = ordinal;
    try {
        CUDA_CHECK(cudaSetDevice(ordinal));
        CUDA_CHECK(cudaStreamCreateWithFlags(&side->stream, cudaStreamNonBlocking));
        side->timelines =
            interop::createFrameTimelines(v.interop, v.slots, "estuary frames", binaryHandoff);
        // Only the headless Vulkan consumer holds draws for a batch (held_draws.cpp).
        if (v.headless && v.consumer == ESTUARY_CONSUMER_VULKAN)
            side->timelines.batch = v.handoffBatch;
        side->events.resize(v.hostRing);
        for (EntryEvents& e : side->events)
            for (cudaEvent_t* ev : {&e.start, &e.waitStart, &e.waitEnd, &e.end})
                CUDA_CHECK(cudaEventCreate(ev));
        side->graphs.resize(v.hostRing);
        // The clock's reference: every event time is read as the elapsed time since it, on a
        // stream of its own that cudaClockBracket keeps idle.
        CUDA_CHECK(cudaStreamCreateWithFlags(&side->clockStream, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreate(&side->clockReference));
        CUDA_CHECK(cudaEventCreate(&side->clockProbe));
        CUDA_CHECK(cudaEventRecord(side->clockReference, side->clockStream));
        CUDA_CHECK(cudaEventSynchronize(side->clockReference));
    } catch (...) {
        side->release(v.interop);
        throw;
    }
    v.cuda = std::move(side);
    v.cudaDevice = ordinal;
}

void closeCuda(estuary_viewer& v) {
    if (!v.cuda) return;
    v.cuda->release(v.interop);
    v.cuda.reset();
}

void* cudaStream(const estuary_viewer& v) {
    return v.cuda ? v.cuda->stream : nullptr;
}

void createCudaImage(estuary_viewer& v, estuary_image& image, VkImageUsageFlags usage) {
    interop::ImageRingDesc desc;
    desc.format = image.vkFormat;
    desc.extent = image.extent;
    desc.shape = image.shape;
    desc.mipLevels = image.levels;
    desc.usage = usage;
    desc.name = image.name;
    desc.copies = image.copies == 1 ? 1 : 0;
    Owned<CudaImageRing> ring(new CudaImageRing);
    ring->ring = interop::createImageRing(v.interop, v.pool, v.cuda->timelines, desc);
    image.cuda = std::move(ring);
}

void createCudaBuffer(estuary_viewer& v, estuary_buffer& buffer, VkBufferUsageFlags usage) {
    interop::BufferRingDesc desc;
    desc.size = (buffer.size + 3) & ~uint64_t(3); // whole words, as allocations.cpp says why
    desc.usage = usage;
    desc.name = buffer.name;
    desc.copies = buffer.copies == 1 ? 1 : 0;
    Owned<CudaBufferRing> ring(new CudaBufferRing);
    ring->ring = interop::createBufferRing(v.interop, v.pool, v.cuda->timelines, desc);
    buffer.cuda = std::move(ring);
}

void destroyCudaImage(estuary_viewer& v, estuary_image& image) {
    if (image.cuda) interop::destroyImageRing(v.interop, image.cuda->ring);
    image.cuda.reset();
}

void destroyCudaBuffer(estuary_viewer& v, estuary_buffer& buffer) {
    if (buffer.cuda) interop::destroyBufferRing(v.interop, buffer.cuda->ring);
    buffer.cuda.reset();
}

const interop::ExportedImage& cudaExportedImage(const estuary_image& image, uint32_t copy) {
    return image.cuda->ring.images[copy];
}
const interop::ExportedBuffer& cudaExportedBuffer(const estuary_buffer& buffer, uint32_t copy) {
    return buffer.cuda->ring.buffers[copy];
}
uint64_t cudaSurface(const estuary_image& image, uint32_t copy, uint32_t level) {
    return image.cuda->ring.cuda[copy].surfaces[level];
}
void* cudaArray(const estuary_image& image, uint32_t copy, uint32_t level) {
    return image.cuda->ring.cuda[copy].levels[level];
}
void* cudaMipmappedArray(const estuary_image& image, uint32_t copy) {
    return image.cuda->ring.cuda[copy].mipmapped;
}
void* cudaPointer(const estuary_buffer& buffer, uint32_t copy) {
    return buffer.cuda->ring.cuda[copy].pointer;
}

namespace {

void recordEvent(const estuary_frame& frame, cudaEvent_t event) {
    // Inside a capture, an event record is kept as a node only when external (and CUDA refuses
    // external records outside a capture).
    CUDA_CHECK(frame.capturing
                   ? cudaEventRecordWithFlags(event, streamOf(frame), cudaEventRecordExternal)
                   : cudaEventRecord(event, streamOf(frame)));
}

bool keyReplayable(const CudaSide& side, uint64_t key) {
    return std::find(side.unreplayableKeys.begin(), side.unreplayableKeys.end(), key) ==
           side.unreplayableKeys.end();
}

// The steady state a graph may be captured in: the frame's wait exists (its slot was used
// before), the hand-off is by timelines.
bool capturable(const estuary_viewer& v, const estuary_frame& frame) {
    const CudaSide& side = *v.cuda;
    return side.timelines.writtenBinary.empty() && side.timelines.firstFrame &&
           frame.index >= *side.timelines.firstFrame + v.slots &&
           keyReplayable(side, frame.replayKey) && v.faultCudaStall != frame.index;
}

} // namespace

void cudaBeginFrame(estuary_viewer& v, estuary_frame& frame) {
    CudaSide& side = *v.cuda;
    EntryEvents& ev = side.events[frame.entry];
    ev.used = true;
    ev.fromGraph = false;
    if (frame.replayKey != 0) {
        CapturedFrame& graph = side.graphs[frame.entry];
        if (graph.exec && graph.key == frame.replayKey && graph.slot == frame.slot &&
            capturable(v, frame)) {
            setSemaphoreValues(graph, interop::slotWaitValue(side.timelines, frame.index),
                               frame.index + 1);
            // The graph holds the frame's signal: the order after the previous frame's signal is
            // kept outside it (a stream of its own waits for that frame before the graph runs).
            interop::cudaOrderAfterLastSignal(side.timelines, streamOf(frame));
            CUDA_CHECK(cudaGraphLaunch(graph.exec, streamOf(frame)));
            interop::cudaNoteSignal(side.timelines, streamOf(frame));
            frame.replayed = frame.waited = true;
            ev.fromGraph = true;
            side.lastEnd = ev.end;
            return;
        }
        if (capturable(v, frame)) {
            graph.release();
            interop::cudaOrderAfterLastSignal(side.timelines, streamOf(frame));
            // Thread-local: only this thread's calls are checked for capture-unsafe APIs.
            CUDA_CHECK(cudaStreamBeginCapture(streamOf(frame), cudaStreamCaptureModeThreadLocal));
            frame.capturing = true;
        }
    }
    recordEvent(frame, ev.start);
    if (!(frame.flags & ESTUARY_FRAME_DEFER_WAIT)) cudaWaitSlot(v, frame);
}

void cudaWaitSlot(estuary_viewer& v, estuary_frame& frame) {
    if (frame.waited) return;
    EntryEvents& ev = v.cuda->events[frame.entry];
    recordEvent(frame, ev.waitStart);
    // estuary_inject_fault: a deadlock, this frame's writes waiting for the next frame's draw.
    if (v.faultCudaStall == frame.index)
        interop::cudaWaitTimeline(v.cuda->timelines.released, frame.index + 2, streamOf(frame));
    interop::cudaBeginFrame(v.cuda->timelines, frame.index, streamOf(frame));
    recordEvent(frame, ev.waitEnd);
    frame.waited = true;
}

void cudaWaitAllDrawn(estuary_viewer& v, estuary_frame& frame) {
    submitHeldDraws(v); // the earlier frames of this batch are waited for: they must be submitted
    interop::cudaWaitAllDrawn(v.cuda->timelines, frame.index, streamOf(frame));
}

void forgetGraphs(estuary_viewer& v) {
    if (!v.cuda) return;
    for (CapturedFrame& graph : v.cuda->graphs)
        graph.release();
    v.cuda->unreplayableKeys.clear();
}

void cudaEndFrame(estuary_viewer& v, estuary_frame& frame) {
    CudaSide& side = *v.cuda;
    if (frame.replayed) return;
    cudaWaitSlot(v, frame); // deferred and never asked for: the slot is not written, nothing waits
    EntryEvents& ev = side.events[frame.entry];
    recordEvent(frame, ev.end);
    side.lastEnd = ev.end;
    if (!frame.capturing) {
        interop::cudaEndFrame(side.timelines, frame.index, streamOf(frame));
        return;
    }
    interop::cudaSignalWritten(side.timelines, frame.index, streamOf(frame)); // ordered at begin
    frame.capturing = false;
    CapturedFrame& graph = side.graphs[frame.entry];
    CUDA_CHECK(cudaStreamEndCapture(streamOf(frame), &graph.graph));
    try {
        CUDA_CHECK(cudaGraphInstantiate(&graph.exec, graph.graph, 0));
        const bool replayable = findSemaphoreNodes(graph);
        // The captured work has not run yet: launch it now, as this frame.
        CUDA_CHECK(cudaGraphLaunch(graph.exec, streamOf(frame)));
        interop::cudaNoteSignal(side.timelines, streamOf(frame));
        if (replayable) {
            graph.key = frame.replayKey;
            graph.slot = frame.slot;
        } else {
            // More waits than the slot's (a single written in the frame): such work cannot be
            // replayed with one pair of values.
            side.unreplayableKeys.push_back(frame.replayKey);
            logMessage(v, ESTUARY_LOG_WARNING,
                       "a frame with replay key " + std::to_string(frame.replayKey) +
                           " waits on more than its slot (it writes a single image or buffer); "
                           "it runs call by call from now on");
            graph.release();
        }
    } catch (...) {
        graph.release();
        throw;
    }
}

uint64_t cudaBatchLast(const estuary_viewer& v, uint64_t frame) {
    return interop::batchLast(v.cuda->timelines, frame);
}

VkSemaphoreSubmitInfo cudaDrawWait(const estuary_viewer& v, uint64_t frame,
                                   VkPipelineStageFlags2 stage) {
    return interop::drawWaitInfo(v.cuda->timelines, frame, stage);
}

VkSemaphoreSubmitInfo cudaDrawSignal(const estuary_viewer& v, uint64_t frame) {
    return interop::drawSignalInfo(v.cuda->timelines, frame);
}

CudaHandoff cudaHandoff(const estuary_viewer& v) {
    CudaHandoff h;
    const interop::FrameTimelines& t = v.cuda->timelines;
    h.written = t.written.semaphore;
    h.released = t.released.semaphore;
    for (const interop::SharedBinary& b : t.writtenBinary)
        h.writtenBinary.push_back(b.semaphore);
    for (const interop::SharedBinary& b : t.releasedBinary)
        h.releasedBinary.push_back(b.semaphore);
    return h;
}

std::optional<std::array<double, 4>> cudaFrameTimes(estuary_viewer& v, uint64_t frame,
                                                    bool& fromGraph) {
    CudaSide& side = *v.cuda;
    EntryEvents& ev = side.events[frame % v.hostRing];
    // The frame was drawn, and its draw waited for the signal enqueued after ev.end: no query
    // blocks.
    if (!ev.used || cudaEventQuery(ev.end) != cudaSuccess) return std::nullopt;
    float sinceReference = 0, steps = 0, wait = 0, write = 0;
    CUDA_CHECK(cudaEventElapsedTime(&sinceReference, side.clockReference, ev.start));
    CUDA_CHECK(cudaEventElapsedTime(&steps, ev.start, ev.waitStart));
    CUDA_CHECK(cudaEventElapsedTime(&wait, ev.waitStart, ev.waitEnd));
    CUDA_CHECK(cudaEventElapsedTime(&write, ev.waitEnd, ev.end));
    fromGraph = ev.fromGraph;
    // Only the start is read against the reference: a float of milliseconds since it loses
    // precision as a run goes on, the short spans within the frame do not.
    const double start = 1000.0 * double(sinceReference);
    const double waitStart = start + 1000.0 * double(steps);
    const double waitEnd = waitStart + 1000.0 * double(wait);
    return std::array<double, 4>{start, waitStart, waitEnd, waitEnd + 1000.0 * double(write)};
}

std::optional<ClockBracket> cudaClockBracket(estuary_viewer& v, uint32_t tries) {
    using SteadyClock = std::chrono::steady_clock;
    CudaSide& side = *v.cuda;
    std::array<ClockBracket, 64> samples{};
    const uint32_t count = std::clamp(tries, 1u, uint32_t(samples.size()));
    for (uint32_t i = 0; i < count; ++i) {
        const auto before = SteadyClock::now();
        CUDA_CHECK(cudaEventRecord(side.clockProbe, side.clockStream));
        cudaError_t done;
        while ((done = cudaEventQuery(side.clockProbe)) == cudaErrorNotReady)
            if (SteadyClock::now() - before > std::chrono::seconds(5))
                throw runtimeError("an event on an idle CUDA stream did not complete within 5 s "
                                   "while aligning the CUDA clock");
        const auto after = SteadyClock::now();
        CUDA_CHECK(done);
        float sinceReference = 0;
        CUDA_CHECK(cudaEventElapsedTime(&sinceReference, side.clockReference, side.clockProbe));
        samples[i] = {1000.0 * double(sinceReference), hostUs(before), hostUs(after)};
    }
    return tightestBracket({samples.data(), count});
}

void cudaCopyToImage(estuary_frame& frame, const estuary_image& image, uint32_t level,
                     const void* source, uint64_t bytes) {
    (void)bytes; // checked by the caller against the level's size
    cudaArray_t array =
        static_cast<cudaArray_t>(cudaArray(image, copyOf(image, frame.index), level));
    const uint32_t w = std::max(1u, image.extent.width >> level);
    const uint32_t h = std::max(1u, image.extent.height >> level);
    const uint32_t d = image.shape.viewType == VK_IMAGE_VIEW_TYPE_3D
                           ? std::max(1u, image.shape.depth >> level)
                           : image.shape.layers;
    const size_t rowBytes = size_t(w) * image.texelBytes;
    if (d == 1) {
        CUDA_CHECK(cudaMemcpy2DToArrayAsync(array, 0, 0, source, rowBytes, rowBytes, h,
                                            cudaMemcpyDefault, streamOf(frame)));
        return;
    }
    cudaMemcpy3DParms copy{};
    copy.srcPtr = make_cudaPitchedPtr(const_cast<void*>(source), rowBytes, w, h);
    copy.dstArray = array;
    copy.extent = make_cudaExtent(w, h, d);
    copy.kind = cudaMemcpyDefault;
    CUDA_CHECK(cudaMemcpy3DAsync(&copy, streamOf(frame)));
}

namespace {
// What marks the end of every frame's work so far: the last signal, which is ordered after every
// earlier frame's on whatever stream (cudaEndFrame); before any, the last frame's end.
cudaEvent_t lastFrameEvent(const CudaSide& side) {
    return side.timelines.anySignal ? side.timelines.lastSignal : side.lastEnd;
}
} // namespace

bool cudaSettled(estuary_viewer& v, uint64_t timeoutNs) {
    if (!v.cuda || !lastFrameEvent(*v.cuda)) return true;
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        const cudaError_t r = cudaEventQuery(lastFrameEvent(*v.cuda));
        if (r != cudaErrorNotReady) return true; // done, or failed: nothing more runs
        if (uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::steady_clock::now() - start)
                         .count()) >= timeoutNs)
            return false;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
}

bool releaseCudaWaits(estuary_viewer& v, uint64_t nextFrame, uint64_t timeoutNs) {
    return !v.cuda || interop::releaseCudaWaits(v.cuda->timelines, nextFrame, timeoutNs);
}

bool releaseVulkanWaits(estuary_viewer& v, uint64_t nextFrame, uint64_t timeoutNs) {
    return !v.cuda || interop::releaseVulkanWaits(v.cuda->timelines, nextFrame, timeoutNs);
}

void throwIfCudaFailed(const estuary_viewer& v) {
    if (!v.cuda || !v.cuda->lastEnd) return;
    const cudaError_t r = cudaEventQuery(v.cuda->lastEnd);
    if (r != cudaSuccess && r != cudaErrorNotReady)
        throw cudaFailure(r, "the frame's work on its CUDA stream", __FILE__, __LINE__);
}

std::string cudaWaitState(const estuary_viewer& v) {
    if (!v.cuda) return {};
    std::string last = "no frame ended yet";
    if (v.cuda->lastEnd) {
        const cudaError_t r = cudaEventQuery(v.cuda->lastEnd);
        last = r == cudaSuccess ? "the last frame's CUDA work is done"
               : r == cudaErrorNotReady
                   ? "the last frame's CUDA work is still queued or running"
                   : std::string("the last frame's CUDA work failed: ") + cudaGetErrorName(r);
    }
    return interop::describeTimelines(v.interop, v.cuda->timelines) + "; " + last;
}

void finishCudaStream(estuary_viewer& v, uint64_t timeoutNs) {
    if (!cudaSettled(v, timeoutNs))
        throw timeoutError("timed out after " + formatSeconds(timeoutNs) +
                           " waiting for the frames' CUDA work; " + cudaWaitState(v));
    throwIfCudaFailed(v);
}

void checkHandoffOrder(estuary_viewer& v) {
    if (!v.cuda) return;
    // The OpenGL consumer's host hand-off signals `released` from this thread: only CUDA's
    // `written` is read then (it is the one frames on several streams could lower).
    const bool glHost = v.gl && v.glHandoff == ESTUARY_GL_HANDOFF_HOST;
    const interop::TimelineValues now =
        interop::readTimelines(v.interop, v.cuda->timelines, !glHost);
    Timing& t = v.timing;
    if (now.written < t.lastWritten || now.released < t.lastReleased) {
        ++t.handoffRegressions;
        logMessage(v, ESTUARY_LOG_ERROR,
                   "a hand-off timeline fell: written " + std::to_string(t.lastWritten) + " -> " +
                       std::to_string(now.written) + ", released " +
                       std::to_string(t.lastReleased) + " -> " + std::to_string(now.released));
    }
    t.lastWritten = std::max(t.lastWritten, now.written);
    t.lastReleased = std::max(t.lastReleased, now.released);
    ++t.handoffChecks;
}

void cudaMemory(const estuary_viewer& v, uint64_t& freeBytes, uint64_t& totalBytes) {
    freeBytes = totalBytes = 0;
    if (!v.cuda) return;
    size_t f = 0, t = 0;
    const CudaDeviceScope onViewersDevice(&v); // whichever call asks, the viewer's device answers
    if (cudaMemGetInfo(&f, &t) == cudaSuccess) {
        freeBytes = f;
        totalBytes = t;
    }
}

} // namespace estuary::lib
