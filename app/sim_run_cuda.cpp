// The runs that need CUDA (sim_run.h): the CUDA simulation writing the viewer's exported images
// and buffers on its own stream, and the host-copy reference that carries the same outputs through
// host memory. CUDA builds only.
// The CUDA runtime first, so estuary.hpp (through sim_run.h) offers its CUDA accessors.
#include <cuda_runtime.h>

#include "sim_run.h"
#include "slabs_cuda.h"
#include "volume_march.h"
#include "colormap.h"
#include "volume_camera.h"
#include "links.h"
#include "slabs_ranks_cuda.h"
#include "cuda_check.h"
#include "cuda_simulation.h"
#include "errors.h"
#include "fault_injection.h"
#include "gpu_wait.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <numbers>
#include <thread>

namespace estuary {
namespace {

double hostUsNow() {
    return std::chrono::duration<double, std::micro>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// Waits for the stream, bounded like every wait estuary makes: a hang is an error naming it.
void finishStream(cudaStream_t stream, const char* what) {
    const auto start = std::chrono::steady_clock::now();
    const uint64_t timeout = gpuWaitTimeoutNs();
    cudaError_t r;
    while ((r = cudaStreamQuery(stream)) == cudaErrorNotReady) {
        if (uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::steady_clock::now() - start)
                         .count()) >= timeout)
            throw runtimeError(std::string("timed out waiting for ") + what);
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    CUDA_CHECK(r);
}

std::unique_ptr<sim::CudaSimulation> makeCudaSimulation(const SimRunConfig& config) {
    const sim::SimDefinition& def = *config.simulation;
    if (!def.createCuda) throw unsupported(def.name + " has no CUDA implementation in this build");
    const sim::GridSize grid{config.grid.width, config.grid.height, config.grid.depth,
                             config.particles};
    if (config.ranks) {
        if (config.slabs != config.ranks->size())
            throw usageError("--slabs " + std::to_string(config.slabs) + " in a job of " +
                             std::to_string(config.ranks->size()) +
                             " ranks on GPUs: one slab per rank (leave --slabs out)");
        std::printf("estuary: halos and gathers between ranks through %s\n",
                    sim::loadNccl().c_str());
        std::fflush(stdout);
        return sim::createRankedCuda(def, grid, *config.ranks,
                                     cudaRanksHalo(config, uint32_t(config.ranks->size())),
                                     config.displayShare);
    }
    if (config.slabs <= 1 && config.gpus <= 1) return def.createCuda(grid);
    int display = 0;
    CUDA_CHECK(cudaGetDevice(&display));
    const std::vector<int> devices = sim::slabDevices(display, config.gpus);
    auto split = sim::createSlabbedCuda(
        def, grid, sim::planSlabRun(grid, slabRunLayout(config, uint32_t(devices.size()))),
        devices);
    if (devices.size() > 1) {
        std::printf("estuary: halos between GPUs through %s; CUDA devices",
                    sim::slabHaloTransport(*split).c_str());
        for (int d : devices)
            std::printf(" %d", d);
        std::printf(" (%d draws)\n", display);
        std::fflush(stdout);
    }
    return split;
}

// What the sort-last march needs that does not change from frame to frame: the picture's size,
// the transfer function (the shown visual's range, --opacity, the colormap's atlas row, read
// from the file the library reads it from) and the background.
sim::MarchView marchBase(const Viewer& viewer, const SimRunConfig& config, uint32_t view) {
    const estuary_viewer_info info = viewer.info();
    sim::MarchView m;
    m.width = info.width;
    m.height = info.height;
    const sim::Visual& visual = config.simulation->views.at(view);
    m.valueMin = visual.valueMin;
    m.valueMax = visual.valueMax;
    m.opacity = config.opacity;
    const float background[] = {ESTUARY_BACKGROUND_COLOR};
    std::copy(std::begin(background), std::end(background), m.background);
    if (config.colormap >= kColormapCount)
        throw usageError("--composite sort-last draws the built-in colormaps only");
    const ColormapTable table =
        loadColormapFile(builtinColormapFile(info.data_dir ? info.data_dir : ".", config.colormap));
    const ColormapRow row = colormapRow(table);
    static_assert(sizeof(row) == sizeof(m.colormap));
    std::memcpy(m.colormap, row.data(), sizeof(m.colormap));
    m.categories = table.categorical ? uint32_t(table.entries.size()) : 0u;
    return m;
}

// The CUDA simulation writes the viewer's exported outputs. Its steps touch CUDA-private state
// only, so the frame's wait for its slot is deferred past them.
class CudaRun final : public SimRun {
  public:
    CudaRun(const Viewer& viewer, const SimRunConfig& config)
        : SimRun(viewer, config, ESTUARY_WRITER_CUDA) {
        try {
            CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
            sim_ = makeCudaSimulation(config);
            sim_->reset(config.seed, stream_);
            if (config.sortLast) {
                march_ = marchBase(viewer, config, viewIndex());
                if (!sim::enableSlabMarch(*sim_, march_.width, march_.height))
                    throw usageError("--composite sort-last needs a volume split into at most " +
                                     std::to_string(sim::kMaxMarchSlabs) + " slabs");
            }
            CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&pinned_), kPinnedBytes));
            std::memset(pinned_, 0, kPinnedBytes);
        } catch (...) {
            release();
            throw;
        }
        surfaces_.resize(images_.size());
        targets_.resize(images_.size());
        pointers_.resize(buffers_.size());
    }
    ~CudaRun() override { release(); }

    const char* name() const override { return "cuda"; }
    void brush(const sim::Brush& brush, const sim::ParamValues& params) override {
        sim_->brush(brush, params, stream_);
    }
    void reset(uint64_t seed) override { sim_->reset(seed, stream_); }
    size_t traceGpus() override { return sim::traceSlabSpans(*sim_); }
    std::vector<sim::GpuSpan> takeGpuSpans() const override { return sim::takeSlabSpans(*sim_); }

  private:
    // Frames may still run on the stream: the viewer waits for its frames before images go.
    void release() {
        if (stream_) (void)cudaStreamSynchronize(stream_);
        sim_.reset();
        if (pinned_) (void)cudaFreeHost(pinned_);
        if (stream_) (void)cudaStreamDestroy(stream_);
        pinned_ = nullptr;
        stream_ = nullptr;
    }

    // A frame's CUDA work may come from a graph in the steady state of a plain run: no stamps, no
    // injected fault, a simulation that says what its work depends on. The key names the
    // parameters, steps and simulation state the work was captured under; each combination keeps
    // its own number, so a changed parameter is captured afresh.
    uint64_t replayKey(uint64_t frame, const sim::ParamValues& params, int steps) {
        const std::optional<uint64_t> state = sim_->replayState();
        if (!config_.cudaGraphs || graphsOff_ || config_.stampFrames || !state ||
            config_.cudaFault == frame)
            return 0;
        for (const KeyedWork& k : keys_)
            if (k.state == *state && k.steps == steps && k.params == params) return k.key;
        if (keys_.size() >= 64) keys_.erase(keys_.begin());
        // Unique in the process: a later run's work (its own memory) must never replay a graph
        // captured by an earlier one.
        static std::atomic<uint64_t> lastKey{0};
        keys_.push_back({params, steps, *state, ++lastKey});
        return keys_.back().key;
    }

    void runFrame(const sim::ParamValues& params, int steps,
                  const std::function<void(const Frame&)>& inspect) override {
        const uint64_t next = viewer_.nextFrameIndex();
        estuary_frame_desc desc{};
        desc.stream = stream_;
        desc.flags = ESTUARY_FRAME_DEFER_WAIT;
        desc.replay_key = replayKey(next, params, steps);
        const std::optional<uint64_t> stateBefore = sim_->replayState();
        const Frame frame = viewer_.beginFrame(&desc);
        if (!frame.replayed()) {
            sim_->step(params, steps, stream_);
            if (config_.cudaFault == frame.index()) launchFaultingKernel(stream_);
            frame.wait();
            for (size_t i = 0; i < images_.size(); ++i) {
                const uint32_t levels = sim::levelCount(layout_.images[i]);
                surfaces_[i].resize(levels);
                for (uint32_t level = 0; level < levels; ++level)
                    surfaces_[i][level] = frame.surface(images_[i], level);
                targets_[i] = sim::DeviceImageTarget{surfaces_[i]};
            }
            for (size_t b = 0; b < buffers_.size(); ++b)
                pointers_[b] = frame.devicePointer(buffers_[b]);
            if (config_.sortLast) sim::setSlabMarch(*sim_, marched());
            // The ring keeps each entry's buffers until frames later, so the simulation may keep
            // state there (the fluid's particles); not when stamps overwrite some of their bytes.
            sim_->writeOutputs({targets_, pointers_, !config_.stampFrames}, stream_);
            if (config_.stampFrames) stamp(frame);
            // Captured work that changed the simulation's state (an odd number of ping-pong
            // steps) ran once, but cannot be replayed: stop trying.
            if (desc.replay_key && sim_->replayState() != stateBefore) graphsOff_ = true;
        }
        if (inspect) inspect(frame);
        frame.end();
    }

    // The march's view for this frame: the orbit camera of panel 0 (the viewer's camera, as the
    // volume view would draw it), the rest as set up.
    sim::MarchView marched() const {
        const estuary_camera c = viewer_.camera();
        constexpr float kRadians = std::numbers::pi_v<float> / 180.0f;
        const OrbitCamera orbit = orbitCamera(c.yaw_degrees * kRadians, c.pitch_degrees * kRadians,
                                              c.zoom, march_.width, march_.height);
        sim::MarchView m = march_;
        for (int i = 0; i < 3; ++i) {
            m.eye[i] = orbit.eye[size_t(i)];
            m.forward[i] = orbit.forward[size_t(i)];
            m.right[i] = orbit.right[size_t(i)];
            m.up[i] = orbit.up[size_t(i)];
        }
        return m;
    }

    // The frame index into texel (0, 0) of the shown image and the last 4 bytes of each buffer.
    void stamp(const Frame& frame) {
        // The pinned source of entry e is rewritten only after the frame that used it was drawn.
        float* texel = pinned_ + (frame.index() % kEntries) * 8;
        stampTexel(texel, frame.index());
        texel[4] = float(frame.index());
        const uint32_t shown = config_.simulation->views[viewIndex()].image;
        const size_t bytes = sim::texelBytes(layout_.images[shown].format);
        cudaMemcpy3DParms copy{};
        copy.srcPtr = make_cudaPitchedPtr(texel, bytes, 1, 1);
        copy.dstArray = frame.array(images_[shown], 0);
        copy.extent = make_cudaExtent(1, 1, 1);
        copy.kind = cudaMemcpyHostToDevice;
        CUDA_CHECK(cudaMemcpy3DAsync(&copy, stream_));
        for (size_t b = 0; b < buffers_.size(); ++b)
            CUDA_CHECK(cudaMemcpyAsync(static_cast<uint8_t*>(pointers_[b]) +
                                           layout_.buffers[b].bytes - sizeof(float),
                                       texel + 4, sizeof(float), cudaMemcpyHostToDevice, stream_));
    }

    static constexpr size_t kEntries = 64; // more than any host ring
    static constexpr size_t kPinnedBytes = kEntries * 8 * sizeof(float);
    struct KeyedWork {
        sim::ParamValues params;
        int steps = 0;
        uint64_t state = 0, key = 0;
    };

    cudaStream_t stream_ = nullptr;
    std::unique_ptr<sim::CudaSimulation> sim_;
    float* pinned_ = nullptr;
    std::vector<std::vector<cudaSurfaceObject_t>> surfaces_;
    std::vector<sim::DeviceImageTarget> targets_;
    std::vector<void*> pointers_;
    std::vector<KeyedWork> keys_;
    bool graphsOff_ = false;
    sim::MarchView march_; // sortLast: all but the camera
};

// No interop: the CUDA simulation writes private CUDA memory, every level and buffer is copied to
// pinned host memory, the host waits for the copy, and the bytes go into the frame's host memory
// like the CPU reference's. Same kernels, same drawing: only the path between them differs.
class HostCopyRun final : public SimRun {
  public:
    HostCopyRun(const Viewer& viewer, const SimRunConfig& config)
        : SimRun(viewer, config, ESTUARY_WRITER_HOST) {
        try {
            CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
            sim_ = makeCudaSimulation(config);
            sim_->reset(config.seed, stream_);
            size_t pinnedBytes = 0;
            for (const sim::ImageOutput& output : layout_.images) {
                privateImages_.push_back(sim::createDeviceImage(output));
                for (uint32_t level = 0; level < sim::levelCount(output); ++level)
                    pinnedBytes += levelBytes(output, level);
            }
            for (const sim::BufferOutput& output : layout_.buffers) {
                void* pointer = nullptr;
                CUDA_CHECK(cudaMalloc(&pointer, output.bytes));
                privateBuffers_.push_back(pointer);
                pinnedBytes += output.bytes;
            }
            for (const sim::DeviceImage& image : privateImages_)
                targets_.push_back(image.target());
            CUDA_CHECK(cudaMallocHost(&pinned_, pinnedBytes));
            for (cudaEvent_t* ev : {&start_, &end_})
                CUDA_CHECK(cudaEventCreate(ev));
        } catch (...) {
            release();
            throw;
        }
    }
    ~HostCopyRun() override { release(); }

    const char* name() const override { return "host-copy"; }
    void brush(const sim::Brush& brush, const sim::ParamValues& params) override {
        sim_->brush(brush, params, stream_);
    }
    void reset(uint64_t seed) override { sim_->reset(seed, stream_); }

  private:
    static size_t levelBytes(const sim::ImageOutput& image, uint32_t level) {
        return size_t(sim::mipSize(image.width, level)) * sim::mipSize(image.height, level) *
               sim::mipSize(image.depth, level) * sim::texelBytes(image.format);
    }

    void release() {
        if (stream_) (void)cudaStreamSynchronize(stream_);
        sim_.reset();
        for (sim::DeviceImage& image : privateImages_)
            sim::destroyDeviceImage(image);
        privateImages_.clear();
        for (void* pointer : privateBuffers_)
            (void)cudaFree(pointer);
        privateBuffers_.clear();
        if (pinned_) (void)cudaFreeHost(pinned_);
        for (cudaEvent_t ev : {start_, end_})
            if (ev) (void)cudaEventDestroy(ev);
        if (stream_) (void)cudaStreamDestroy(stream_);
        pinned_ = nullptr;
        stream_ = nullptr;
        start_ = end_ = nullptr;
    }

    void runFrame(const sim::ParamValues& params, int steps,
                  const std::function<void(const Frame&)>& inspect) override {
        const Frame frame = viewer_.beginFrame();
        HostSimTimes t;
        t.frame = frame.index();
        t.startUs = hostUsNow();
        CUDA_CHECK(cudaEventRecord(start_, stream_));
        sim_->step(params, steps, stream_);
        if (config_.cudaFault == frame.index()) launchFaultingKernel(stream_);
        sim_->writeOutputs({targets_, privateBuffers_}, stream_);
        CUDA_CHECK(cudaEventRecord(end_, stream_));
        // Every level of every image, then every buffer, packed into pinned memory.
        uint8_t* pinned = static_cast<uint8_t*>(pinned_);
        for (size_t i = 0; i < privateImages_.size(); ++i) {
            const sim::ImageOutput& output = layout_.images[i];
            for (uint32_t level = 0; level < sim::levelCount(output); ++level) {
                const size_t w = sim::mipSize(output.width, level);
                const size_t h = sim::mipSize(output.height, level);
                const size_t d = sim::mipSize(output.depth, level);
                const size_t row = w * sim::texelBytes(output.format);
                cudaMemcpy3DParms copy{};
                copy.srcArray = privateImages_[i].levels[level];
                copy.dstPtr = make_cudaPitchedPtr(pinned, row, w, h);
                copy.extent = make_cudaExtent(w, h, d);
                copy.kind = cudaMemcpyDeviceToHost;
                CUDA_CHECK(cudaMemcpy3DAsync(&copy, stream_));
                pinned += levelBytes(output, level);
            }
        }
        for (size_t b = 0; b < privateBuffers_.size(); ++b) {
            CUDA_CHECK(cudaMemcpyAsync(pinned, privateBuffers_[b], layout_.buffers[b].bytes,
                                       cudaMemcpyDeviceToHost, stream_));
            pinned += layout_.buffers[b].bytes;
        }
        // Without interop the host must wait for the data before Vulkan can have it.
        finishStream(stream_, "the host-copy run's CUDA stream");
        t.stepsEndUs = hostUsNow();
        pinned = static_cast<uint8_t*>(pinned_);
        void* shownTexel = nullptr;
        for (size_t i = 0; i < images_.size(); ++i) {
            const sim::ImageOutput& output = layout_.images[i];
            for (uint32_t level = 0; level < sim::levelCount(output); ++level) {
                void* dst = frame.hostLevel(images_[i], level);
                if (level == 0 && i == config_.simulation->views[viewIndex()].image)
                    shownTexel = dst;
                std::memcpy(dst, pinned, levelBytes(output, level));
                pinned += levelBytes(output, level);
            }
        }
        for (size_t b = 0; b < buffers_.size(); ++b) {
            void* dst = frame.hostPointer(buffers_[b]);
            std::memcpy(dst, pinned, layout_.buffers[b].bytes);
            pinned += layout_.buffers[b].bytes;
            if (config_.stampFrames) {
                const float value = float(frame.index());
                std::memcpy(static_cast<uint8_t*>(dst) + layout_.buffers[b].bytes - sizeof(float),
                            &value, sizeof(value));
            }
        }
        if (config_.stampFrames && shownTexel) stampTexel(shownTexel, frame.index());
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start_, end_));
        t.endUs = hostUsNow();
        t.simMs = double(ms);
        keepHostTimes(t);
        if (inspect) inspect(frame);
        frame.end();
    }

    cudaStream_t stream_ = nullptr;
    std::unique_ptr<sim::CudaSimulation> sim_;
    std::vector<sim::DeviceImage> privateImages_;
    std::vector<void*> privateBuffers_;
    std::vector<sim::DeviceImageTarget> targets_;
    void* pinned_ = nullptr;
    cudaEvent_t start_ = nullptr, end_ = nullptr;
};

} // namespace

std::unique_ptr<SimRun> createCudaRun(const Viewer& viewer, const SimRunConfig& config) {
    if (!viewer.hasCuda())
        throw unsupported("the cuda run needs a viewer with CUDA: " +
                          std::string(viewer.info().cuda_choice));
    return std::make_unique<CudaRun>(viewer, config);
}

std::unique_ptr<SimRun> createHostCopyRun(const Viewer& viewer, const SimRunConfig& config) {
    if (!viewer.hasCuda())
        throw unsupported("the host-copy run needs a viewer with CUDA: " +
                          std::string(viewer.info().cuda_choice));
    return std::make_unique<HostCopyRun>(viewer, config);
}

} // namespace estuary
