// CUDA backend: generic glue between a sim::CudaSimulation and interop's frame protocol. Every
// output image is an ImageRing and every output buffer a BufferRing (one slot per frame in flight),
// all synchronized by one FrameTimelines. Per frame, on one CUDA stream:
//   step (CUDA-private state, overlaps Vulkan drawing older frames) → cudaBeginFrame (GPU-side wait
//   until Vulkan released the slot) → writeOutputs into the slot → cudaEndFrame (signal);
// and in the draw submission: wait written ≥ f + 1 → acquire the slot → draw → release → signal
// released = f + 1. The host never waits on either API here.
#include "sim_backend.h"
#include "cuda_frame_graphs.h"
#include "fault_injection.h"
#include "cuda_check.h"
#include "cuda_simulation.h"
#include "estuary/interop/buffer_ring.h"
#include "estuary/interop/frame_timelines.h"
#include "estuary/interop/image_ring.h"
#include "profile_ranges.h"
#include "simulations.h"
#include "vk_check.h"

#include <cuda_runtime.h> // make_cudaPitchedPtr and friends
#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <vector>

namespace estuary {
namespace {

using namespace interop;

// The slot's outputs as the simulation sees them, built once: spans into the rings' surfaces.
struct SlotTargets {
    std::vector<sim::DeviceImageTarget> images;
    std::vector<void*> buffers;
    sim::DeviceTargets targets() const { return {images, buffers}; }
};

// One texel between pinned host memory and texel (x, y) of `array` (slice 0 of a 3D array), in
// stream order. cudaMemcpy3D, unlike the 2D copies, takes arrays of every dimensionality.
void copyTexel(cudaArray_t array, size_t x, size_t y, void* host, size_t texelBytes,
               cudaMemcpyKind kind, cudaStream_t stream) {
    cudaMemcpy3DParms copy{};
    const cudaPitchedPtr hostPtr = make_cudaPitchedPtr(host, texelBytes, 1, 1);
    const cudaPos at = make_cudaPos(x, y, 0); // array positions count elements, not bytes
    if (kind == cudaMemcpyHostToDevice) {
        copy.srcPtr = hostPtr;
        copy.dstArray = array;
        copy.dstPos = at;
    } else {
        copy.srcArray = array;
        copy.srcPos = at;
        copy.dstPtr = hostPtr;
    }
    copy.extent = make_cudaExtent(1, 1, 1);
    copy.kind = kind;
    CUDA_CHECK(cudaMemcpy3DAsync(&copy, stream));
}

class CudaBackend final : public SimBackend {
  public:
    CudaBackend(const Context& context, VkCommandPool pool, const BackendConfig& config,
                int cudaDevice)
        : context_(context), layout_(checkedOutputs(config)), display_(config.displayImage),
          stampFrames_(config.stampFrameIndex), graphsOff_(!config.cudaGraphs) {
        if (!config.simulation->createCuda)
            throw unsupported(config.simulation->name +
                              " has no CUDA implementation in this build");
        // A constructor that throws runs no destructor: release what was made so far.
        try {
            CUDA_CHECK(cudaSetDevice(cudaDevice));
            CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
            sim_ = config.simulation->createCuda(gridSizeOf(config));
            sim_->reset(config.seed, stream_);
            createOutputs(pool, config);
            if (faultPlan().allocFail)
                throw cudaFailure(cudaErrorMemoryAllocation,
                                  "cudaMalloc (ESTUARY_FAULT=alloc-fail)", __FILE__, __LINE__);
            // Per-frame bookkeeping lives in the command ring, which is longer than the slot ring.
            ring_ = std::min(2 * config.slots, kMaxRing);
            events_.resize(ring_);
            for (auto& e : events_)
                for (cudaEvent_t* ev : {&e.start, &e.beforeWait, &e.afterWait, &e.end})
                    CUDA_CHECK(cudaEventCreate(ev));
            const size_t pinnedBytes = kPinnedPerEntry * ring_ * kTexelFloats * sizeof(float);
            CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&pinned_), pinnedBytes));
            std::memset(pinned_, 0, pinnedBytes); // a stamp's other channels are written as 0
            // The clock's reference: every event time is read as the elapsed time since it.
            // Recorded on a stream of its own, which clockBracket() keeps idle.
            CUDA_CHECK(cudaStreamCreateWithFlags(&clockStream_, cudaStreamNonBlocking));
            CUDA_CHECK(cudaEventCreate(&clockReference_));
            CUDA_CHECK(cudaEventCreate(&clockProbe_));
            CUDA_CHECK(cudaEventRecord(clockReference_, clockStream_));
            CUDA_CHECK(cudaEventSynchronize(clockReference_));
        } catch (...) {
            release();
            throw;
        }
    }

    ~CudaBackend() override { release(); }

    // Stream sync → surfaces → mipmapped arrays → external memory and semaphores → Vulkan. Safe on
    // a partly constructed backend: every step skips what does not exist.
    void release() {
        // The session settled the stream before destroying the backend; a partly built one has
        // nothing in flight.
        if (stream_) (void)cudaStreamSettled(stream_, gpuWaitTimeoutNs());
        graphs_.clear(); // before the events and surfaces its nodes name
        sim_.reset();
        for (auto& e : events_)
            for (cudaEvent_t ev : {e.start, e.beforeWait, e.afterWait, e.end})
                if (ev) (void)cudaEventDestroy(ev);
        events_.clear();
        (void)cudaFreeHost(pinned_);
        pinned_ = nullptr;
        for (cudaEvent_t* ev : {&clockReference_, &clockProbe_}) {
            if (*ev) (void)cudaEventDestroy(*ev);
            *ev = nullptr;
        }
        if (clockStream_) (void)cudaStreamDestroy(clockStream_);
        clockStream_ = nullptr;
        for (ImageRing& ring : images_)
            destroyImageRing(context_, ring);
        for (BufferRing& ring : buffers_)
            destroyBufferRing(context_, ring);
        images_.clear();
        buffers_.clear();
        destroyFrameTimelines(context_, timelines_);
        if (stream_) (void)cudaStreamDestroy(stream_);
        stream_ = nullptr;
    }

    const char* name() const override { return "cuda"; }
    uint32_t slotCount() const override { return timelines_.slots; }
    uint32_t hostRingSize() const override { return ring_; }
    const GpuImage& outputImage(uint32_t slot, uint32_t index) const override {
        return images_[index].images[slot].image;
    }
    uint32_t displayIndex() const override { return display_; }
    void setDisplayIndex(uint32_t index) override {
        display_ = index;
        probe_ = {};
    }
    const GpuBuffer& outputBuffer(uint32_t slot, uint32_t index) const override {
        return buffers_[index].buffers[slot].buffer;
    }

    void simulate(uint64_t frame, const sim::ParamValues& params, int steps) override {
        const uint32_t entry = uint32_t(frame % ring_);
        events_[entry].used = true;
        probeValid_[entry] = probe_.active();
        fromGraph_[entry] = replayable(frame);
        if (!fromGraph_[entry]) return enqueueFrame(frame, params, steps);
        // Replayed: the entry's graph (which records the entry's events) holds this frame's work
        // when the slot, the simulation's state, parameters and steps are those it was captured
        // under. Captured work that changed the simulation's state (say, an odd number
        // of ping-pong steps) runs once but cannot be replayed: then this backend stops trying.
        const uint64_t state = *sim_->replayState();
        const uint32_t slot = slotOf(timelines_, frame);
        const ProfileRange range("frame graph");
        if (!graphs_.holds(entry, slot, state, params, steps)) {
            graphs_.capture(entry, FrameGraphKey{slot, state, params, steps}, stream_,
                            [&] { enqueueFrame(frame, params, steps, /*captured=*/true); });
            if (sim_->replayState() != state) graphsOff_ = true;
        }
        graphs_.launch(entry, frame + 1 - timelines_.slots, frame + 1, stream_);
        if (graphsOff_) graphs_.clear();
    }

    SlotTimes finishedFrameTimes(uint64_t frame) override {
        SlotTimes t;
        const uint32_t entry = uint32_t(frame % ring_);
        SlotEvents& ev = events_[entry];
        // Vulkan drew the frame, and it waited for the signal enqueued after ev.end, so these
        // queries do not block.
        if (!ev.used || cudaEventQuery(ev.end) != cudaSuccess) return t;
        float sinceReference = 0, step = 0, wait = 0, write = 0;
        CUDA_CHECK(cudaEventElapsedTime(&sinceReference, clockReference_, ev.start));
        CUDA_CHECK(cudaEventElapsedTime(&step, ev.start, ev.beforeWait));
        CUDA_CHECK(cudaEventElapsedTime(&wait, ev.beforeWait, ev.afterWait));
        CUDA_CHECK(cudaEventElapsedTime(&write, ev.afterWait, ev.end));
        t.simMs = double(step) + double(write);
        t.fromGraph = fromGraph_[entry];
        t.waitMs = double(wait);
        // Only the start is read against the reference: a float of milliseconds since it loses
        // precision as a run goes on, the short spans within the frame do not.
        t.startUs = 1000.0 * double(sinceReference);
        t.stepsEndUs = t.startUs + 1000.0 * double(step);
        t.writeStartUs = t.stepsEndUs + 1000.0 * double(wait);
        t.endUs = t.writeStartUs + 1000.0 * double(write);
        if (probeValid_[entry])
            probe_.value = probeValueOf(pinned_ + (kPinnedPerEntry * entry + 1) * kTexelFloats,
                                        layout_.images[display_].format);
        return t;
    }

    Clock simClock() const override { return Clock::Device; }

    // An event on the idle clock stream, its completion seen by spinning: it was timestamped
    // after the host's read before cudaEventRecord and before the read after the query saw it.
    std::optional<ClockBracket> clockBracket(uint32_t tries) override {
        using SteadyClock = std::chrono::steady_clock;
        std::array<ClockBracket, 64> samples{};
        const uint32_t count = std::clamp(tries, 1u, uint32_t(samples.size()));
        for (uint32_t i = 0; i < count; ++i) {
            const auto before = SteadyClock::now();
            CUDA_CHECK(cudaEventRecord(clockProbe_, clockStream_));
            cudaError_t done;
            while ((done = cudaEventQuery(clockProbe_)) == cudaErrorNotReady) {
                if (SteadyClock::now() - before > std::chrono::seconds(5))
                    throw runtimeError("an event on an idle CUDA stream did not complete within "
                                       "5 s while aligning the CUDA clock");
            }
            const auto after = SteadyClock::now();
            CUDA_CHECK(done);
            float sinceReference = 0;
            CUDA_CHECK(cudaEventElapsedTime(&sinceReference, clockReference_, clockProbe_));
            samples[i] = {1000.0 * double(sinceReference), hostUs(before), hostUs(after)};
        }
        return tightestBracket({samples.data(), count});
    }

    void requestProbe(int x, int y) override {
        probe_.request(x, y, layout_.images[display_].width, layout_.images[display_].height);
    }
    std::optional<ProbeValue> probeValue() const override { return probe_.value; }

    void recordBeforeDraw(VkCommandBuffer cmd, uint64_t frame) override {
        for (const ImageRing& ring : images_)
            recordAcquire(cmd, context_, ring, frame, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                          kReadStages, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, kWaitStage);
        for (const BufferRing& ring : buffers_)
            recordAcquire(cmd, context_, ring, frame, kReadStages,
                          VK_ACCESS_2_SHADER_STORAGE_READ_BIT, kWaitStage);
    }

    void recordAfterDraw(VkCommandBuffer cmd, uint64_t frame) override {
        for (const ImageRing& ring : images_)
            recordRelease(cmd, context_, ring, frame, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                          kReadStages);
        for (const BufferRing& ring : buffers_)
            recordRelease(cmd, context_, ring, frame,
                          kReadStages | VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT);
    }

    std::optional<VkSemaphoreSubmitInfo> drawWait(uint64_t frame) const override {
        return drawWaitInfo(timelines_, frame, kWaitStage);
    }
    std::optional<VkSemaphoreSubmitInfo> drawSignal(uint64_t frame) const override {
        return drawSignalInfo(timelines_, frame);
    }

    std::optional<SharedImage> sharedImage(uint32_t slot, uint32_t index) const override {
        const ExportedImage& image = images_[index].images[slot];
        return SharedImage{image.image.memory, image.allocationSize, image.dedicated,
                           image.image.format, image.image.extent,   image.image.mipLevels};
    }
    std::optional<SharedHandoff> sharedHandoff() const override {
        SharedHandoff h;
        h.written = timelines_.written.semaphore;
        h.released = timelines_.released.semaphore;
        for (const SharedBinary& b : timelines_.writtenBinary)
            h.writtenBinary.push_back(b.semaphore);
        for (const SharedBinary& b : timelines_.releasedBinary)
            h.releasedBinary.push_back(b.semaphore);
        return h;
    }

    void brush(const sim::Brush& brush, const sim::ParamValues& params) override {
        sim_->brush(brush, params, stream_);
    }
    void reset(uint64_t seed) override { sim_->reset(seed, stream_); }
    void finish(uint64_t timeoutNs) override {
        finishCudaStream(stream_, timeoutNs, "the CUDA stream to finish; " + waitState());
    }

    bool simulationSettled(uint64_t timeoutNs) override {
        return cudaStreamSettled(stream_, timeoutNs);
    }

    bool releaseSimulationWaits(uint64_t nextFrame, uint64_t timeoutNs) override {
        return releaseCudaWaits(timelines_, nextFrame, timeoutNs);
    }

    bool releaseVulkanWaits(uint64_t nextFrame, uint64_t timeoutNs) override {
        return interop::releaseVulkanWaits(timelines_, nextFrame, timeoutNs);
    }

    void throwIfFailed() const override {
        throwIfCudaStreamFailed(stream_, "the simulation's CUDA stream");
    }

    std::string waitState() const override {
        const cudaError_t stream = cudaStreamQuery(stream_);
        const std::string streamState =
            stream == cudaSuccess ? "the CUDA stream is idle"
            : stream == cudaErrorNotReady
                ? "the CUDA stream is busy"
                : std::string("the CUDA stream failed: ") + cudaGetErrorName(stream);
        return describeTimelines(context_, timelines_) + "; " + streamState;
    }

  private:
    // Whether this frame's CUDA work may come from a graph: the steady state of a plain run (the
    // slot's wait exists, timelines only, no stamps, probe or injected fault) of a simulation that
    // says what its work depends on.
    bool replayable(uint64_t frame) const {
        return !graphsOff_ && !stampFrames_ && !probe_.active() &&
               timelines_.writtenBinary.empty() && timelines_.firstFrame &&
               frame >= *timelines_.firstFrame + timelines_.slots &&
               faultPlan().cudaFault != frame && faultPlan().cudaStall != frame &&
               sim_->replayState().has_value();
    }

    // One frame's CUDA work, call by call, or `captured` into a graph: its events are then recorded
    // as external ones, which a capture keeps as event nodes with their timestamps (and which CUDA
    // refuses outside a capture).
    void enqueueFrame(uint64_t frame, const sim::ParamValues& params, int steps,
                      bool captured = false) {
        const auto record = [&](cudaEvent_t event) {
            CUDA_CHECK(captured ? cudaEventRecordWithFlags(event, stream_, cudaEventRecordExternal)
                                : cudaEventRecord(event, stream_));
        };
        const uint32_t slot = slotOf(timelines_, frame);
        const uint32_t entry = uint32_t(frame % ring_);
        SlotEvents& ev = events_[entry];
        // The state lives in CUDA memory, so stepping need not wait for Vulkan; only writing the
        // slot's outputs must wait until Vulkan has drawn and released them (frame - slots).
        record(ev.start);
        {
            const ProfileRange range("steps");
            sim_->step(params, steps, stream_);
        }
        if (faultPlan().cudaFault == frame) launchFaultingKernel(stream_);
        record(ev.beforeWait);
        // A deadlock: this frame's writes wait for the draw of the next frame, which waits for
        // them.
        if (faultPlan().cudaStall == frame)
            cudaWaitTimeline(timelines_.released, frame + 2, stream_);
        cudaBeginFrame(timelines_, frame, stream_);
        record(ev.afterWait);
        {
            const ProfileRange range("write outputs");
            sim_->writeOutputs(slotTargets_[slot].targets(), stream_);
        }
        const CudaImage& shown = cudaSlot(images_[display_], frame);
        const size_t texel = sim::texelBytes(layout_.images[display_].format);
        float* stamp = pinned_ + kPinnedPerEntry * entry * kTexelFloats;
        float* probe = stamp + kTexelFloats;
        float* bufferStamp = probe + kTexelFloats;
        if (stampFrames_) {
            // This entry's previous copy (frame - ring) finished before that frame was drawn, and
            // the host waited for that, so rewriting the pinned source now is safe.
            writeStampTexel(stamp, layout_.images[display_].format, float(frame));
            copyTexel(shown.levels[0], 0, 0, stamp, texel, cudaMemcpyHostToDevice, stream_);
            // The buffers' stamp: the frame index as a float in their last 4 bytes.
            bufferStamp[0] = float(frame);
            for (size_t b = 0; b < buffers_.size(); ++b)
                CUDA_CHECK(cudaMemcpyAsync(static_cast<uint8_t*>(slotTargets_[slot].buffers[b]) +
                                               layout_.buffers[b].bytes - sizeof(float),
                                           bufferStamp, sizeof(float), cudaMemcpyHostToDevice,
                                           stream_));
        }
        if (probe_.active())
            copyTexel(shown.levels[0], size_t(probe_.x), size_t(probe_.y), probe, texel,
                      cudaMemcpyDeviceToHost, stream_);
        record(ev.end);
        cudaEndFrame(timelines_, frame, stream_);
    }

    // The draw reads outputs from vertex (buffers, vertex pulling), fragment and compute shaders
    // (the compute draw path, the compute ray march). The wait on CUDA holds back only those
    // stages, so the rest of the submission (the target's layout transitions, clears) runs while
    // CUDA still writes; the acquire barriers' source stages chain to exactly this wait.
    static constexpr VkPipelineStageFlags2 kReadStages = VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                                                         VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT |
                                                         VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    static constexpr VkPipelineStageFlags2 kWaitStage = kReadStages;
    static constexpr uint32_t kMaxRing = 16;
    static constexpr size_t kTexelFloats = 4; // the largest texel: RGBA32 float
    // Pinned texels per ring entry: the image stamp, the probe, the buffers' stamp.
    static constexpr size_t kPinnedPerEntry = 3;

    void createOutputs(VkCommandPool pool, const BackendConfig& config) {
        timelines_ = createFrameTimelines(context_, config.slots, config.simulation->name.c_str(),
                                          config.binaryHandoff);
        for (const sim::ImageOutput& output : layout_.images) {
            ImageRingDesc desc;
            desc.format = vulkanFormat(output.format);
            desc.extent = {output.width, output.height};
            desc.shape = imageShapeOf(output);
            desc.mipLevels = sim::levelCount(output);
            desc.name = config.simulation->name + " " + output.name;
            images_.push_back(createImageRing(context_, pool, timelines_, desc));
        }
        for (const sim::BufferOutput& output : layout_.buffers) {
            BufferRingDesc desc;
            desc.size = output.bytes;
            desc.name = config.simulation->name + " " + output.name;
            buffers_.push_back(createBufferRing(context_, pool, timelines_, desc));
        }
        slotTargets_.resize(config.slots);
        for (uint32_t slot = 0; slot < config.slots; ++slot) {
            for (const ImageRing& ring : images_)
                slotTargets_[slot].images.push_back({ring.cuda[slot].surfaces});
            for (const BufferRing& ring : buffers_)
                slotTargets_[slot].buffers.push_back(ring.cuda[slot].pointer);
        }
    }

    const Context& context_;
    sim::OutputLayout layout_;
    uint32_t display_ = 0;
    bool stampFrames_ = false;
    cudaStream_t stream_ = nullptr;
    std::unique_ptr<sim::CudaSimulation> sim_;
    FrameTimelines timelines_;
    std::vector<ImageRing> images_;
    std::vector<BufferRing> buffers_;
    std::vector<SlotTargets> slotTargets_;
    struct SlotEvents {
        cudaEvent_t start = nullptr, beforeWait = nullptr, afterWait = nullptr, end = nullptr;
        bool used = false;
    };
    std::vector<SlotEvents> events_;
    FrameGraphs graphs_{kMaxRing}; // one per host-ring entry
    bool graphsOff_ = false;       // --cuda-graphs off, or the simulation turned out not replayable
    cudaStream_t clockStream_ = nullptr;
    cudaEvent_t clockReference_ = nullptr, clockProbe_ = nullptr;
    uint32_t ring_ = 1;
    float* pinned_ = nullptr; // per ring entry: kPinnedPerEntry texels
    std::array<bool, kMaxRing> probeValid_{};
    std::array<bool, kMaxRing> fromGraph_{};
    CellProbe probe_;
};

} // namespace

std::unique_ptr<SimBackend> createCudaBackend(const interop::Context& context, VkCommandPool pool,
                                              const BackendConfig& config, int cudaDevice) {
    return std::make_unique<CudaBackend>(context, pool, config, cudaDevice);
}

} // namespace estuary
