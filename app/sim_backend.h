// The simulation side of a frame, behind one interface so the frame loop is the same for every
// simulation and every backend. A backend owns one simulation object (sim::CpuSimulation or
// sim::CudaSimulation, made by the simulation's definition) and one ring slot per frame in flight
// holding all of the simulation's outputs (images with mip chains, buffers). It knows nothing of
// what the simulation computes: parameters, brush strokes and outputs pass through untouched.
//   cuda      — the outputs are Vulkan-exported images/buffers the simulation writes from CUDA;
//               interop's FrameTimelines synchronizes the two APIs on the GPU;
//   cpu       — the CPU reference writes host staging memory, uploaded by the draw submission;
//   host-copy — the CUDA simulation writes private CUDA memory, copied through the host into the
//               same staging path (the benchmark's no-interop reference).
#pragma once

#include "clock_sync.h"
#include "estuary/interop/vulkan_device.h"
#include "frame_timing.h"
#include "half_float.h"
#include "options.h"
#include "resources.h"
#include "simulation.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace estuary {

struct BackendConfig {
    const sim::SimDefinition* simulation = nullptr;
    Extent grid;
    uint32_t particles = 0; // for simulations that carry particles (SimDefinition::particles)
    uint32_t slots = 2;
    uint64_t seed = 1;
    uint32_t displayImage = 0; // the output image the current view shows
    // Tests of pipelining: channel 0 of texel (0, 0) of the displayed image's level 0, and the
    // last 4 bytes of each output buffer (as a float), hold the frame index instead of the
    // simulation's values, so a reader can tell which frame's outputs it sees.
    bool stampFrameIndex = false;
    // For a consumer outside Vulkan (the OpenGL consumer): backends that fill their images from the
    // host make them exportable too (exportOutputs), and the CUDA backend adds a binary semaphore
    // pair per slot (binaryHandoff) for consumers without timeline semaphores.
    bool exportOutputs = false;
    bool binaryHandoff = false;
    // The CUDA backend replays each frame's CUDA work as a CUDA graph where it can (--cuda-graphs).
    bool cudaGraphs = true;
};

// The simulation's view of the config's grid.
inline sim::GridSize gridSizeOf(const BackendConfig& config) {
    return {config.grid.width, config.grid.height, config.grid.depth, config.particles};
}

// An output image as a consumer outside Vulkan imports it: its exported memory and shape.
struct SharedImage {
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize allocationSize = 0;
    bool dedicated = false;
    VkFormat format = VK_FORMAT_UNDEFINED;
    VkExtent2D extent{};
    uint32_t levels = 1;
};

// The semaphores a consumer outside Vulkan waits on and signals instead of drawWait/drawSignal,
// all exportable: interop's FrameTimelines (written: wait for f + 1; released: signal f + 1) and,
// with BackendConfig::binaryHandoff, one binary pair per slot (the producer signals
// writtenBinary[slot] once frame's outputs are written and waits releasedBinary[slot] before
// writing the slot again).
struct SharedHandoff {
    VkSemaphore written = VK_NULL_HANDLE;
    VkSemaphore released = VK_NULL_HANDLE;
    std::vector<VkSemaphore> writtenBinary, releasedBinary;
};

// Up to four channels of one texel of the displayed image.
struct ProbeValue {
    std::array<float, 4> channels{};
    uint32_t count = 0;
};
// The probe value of a texel of `format` read from `texel` (channelCount floats, or halves).
inline ProbeValue probeValueOf(const void* texel, sim::TexelFormat format) {
    ProbeValue value;
    value.count = sim::channelCount(format);
    for (uint32_t c = 0; c < value.count; ++c)
        value.channels[c] = format == sim::TexelFormat::RGBA16Float
                                ? sim::halfToFloat(static_cast<const uint16_t*>(texel)[c])
                                : static_cast<const float*>(texel)[c];
    return value;
}
// A frame stamp: `value` in channel 0 of a texel of `format` at `texel`, the other channels 0.
inline void writeStampTexel(void* texel, sim::TexelFormat format, float value) {
    if (format == sim::TexelFormat::RGBA16Float) {
        auto* halves = static_cast<uint16_t*>(texel);
        halves[0] = sim::floatToHalf(value); // frame indices up to 2048 are exact halves
        halves[1] = halves[2] = halves[3] = 0;
        return;
    }
    auto* floats = static_cast<float*>(texel);
    floats[0] = value;
    for (uint32_t c = 1; c < sim::channelCount(format); ++c)
        floats[c] = 0.0f;
}

// The cell the UI asked about and the latest texel read there: the state behind
// requestProbe/probeValue, the same in every backend.
struct CellProbe {
    int x = -1, y = -1; // -1: no cell asked for (or outside the grid)
    std::optional<ProbeValue> value;

    bool active() const { return x >= 0; }
    size_t index(uint32_t width) const { return size_t(y) * width + size_t(x); }
    void request(int cellX, int cellY, uint32_t width, uint32_t height) {
        const bool inside =
            cellX >= 0 && cellY >= 0 && uint32_t(cellX) < width && uint32_t(cellY) < height;
        x = inside ? cellX : -1;
        y = inside ? cellY : -1;
        if (!inside) value.reset();
    }
};

class SimBackend {
  public:
    virtual ~SimBackend() = default;
    virtual const char* name() const = 0;
    virtual uint32_t slotCount() const = 0;
    // How many frames the host may record ahead of the GPU: the size of the command-buffer ring.
    // The CUDA backend guards output reuse with GPU-side waits, so the host can run further ahead
    // than the output ring and stay off the critical path; backends that write host memory per
    // slot (staging buffers) must keep it equal to slotCount().
    virtual uint32_t hostRingSize() const { return slotCount(); }
    // Output image `index` (in OutputLayout order) and output buffer `index` of `slot`, as Vulkan
    // sees them; between recordBeforeDraw and recordAfterDraw every image is in
    // SHADER_READ_ONLY_OPTIMAL and every buffer readable by shaders.
    virtual const GpuImage& outputImage(uint32_t slot, uint32_t index) const = 0;
    virtual const GpuBuffer& outputBuffer(uint32_t slot, uint32_t index) const = 0;
    // The output image the renderer draws (the current view's image) of `slot`.
    const GpuImage& displayImage(uint32_t slot) const { return outputImage(slot, displayIndex()); }
    virtual uint32_t displayIndex() const = 0;
    // Another view shows output image `index`: the probe reads it from now on.
    virtual void setDisplayIndex(uint32_t index) = 0;

    // Advances the simulation by `steps` and produces frame `frame`'s outputs in slot
    // frame % slotCount(). The caller has already waited (frames-in-flight limit) until the slot's
    // previous frame was drawn. Enqueues GPU work where it can; never waits on the GPU itself.
    virtual void simulate(uint64_t frame, const sim::ParamValues& params, int steps) = 0;
    // Vulkan commands around the draw of `frame`: make the outputs readable by shaders before
    // (the displayed image in SHADER_READ_ONLY_OPTIMAL), hand them back to the simulation after.
    virtual void recordBeforeDraw(VkCommandBuffer cmd, uint64_t frame) = 0;
    virtual void recordAfterDraw(VkCommandBuffer cmd, uint64_t frame) = 0;
    // What the draw submission of `frame` must wait on and signal for the simulation, if anything
    // (the CUDA backend: FrameTimelines' written and released).
    virtual std::optional<VkSemaphoreSubmitInfo> drawWait(uint64_t frame) const = 0;
    virtual std::optional<VkSemaphoreSubmitInfo> drawSignal(uint64_t frame) const = 0;

    // For a consumer outside Vulkan: output image `index` of `slot` as exported memory (nothing
    // where the outputs are not exported), and the hand-off semaphores (nothing where the outputs
    // are produced on the host: the consumer then reads a slot once its upload, recorded by
    // recordBeforeDraw, has finished).
    virtual std::optional<SharedImage> sharedImage(uint32_t slot, uint32_t index) const {
        (void)slot, (void)index;
        return std::nullopt;
    }
    virtual std::optional<SharedHandoff> sharedHandoff() const { return std::nullopt; }

    // GPU/host timings of `frame`, once it has been drawn (call after the frames-in-flight wait,
    // before simulate() of frame + hostRingSize()). simMs: simulation and output write; waitMs:
    // time the simulation stream stalled waiting for Vulkan. NaN when nothing was measured.
    // The spans themselves, in µs on simClock(): steps [startUs, stepsEndUs], waiting for Vulkan
    // to release the slot [stepsEndUs, writeStartUs], the output write [writeStartUs, endUs].
    struct SlotTimes {
        double simMs = kNotMeasured;
        double waitMs = kNotMeasured;
        double startUs = kNotMeasured, stepsEndUs = kNotMeasured;
        double writeStartUs = kNotMeasured, endUs = kNotMeasured;
        bool fromGraph = false; // the CUDA work was one replayed CUDA graph
    };
    virtual SlotTimes finishedFrameTimes(uint64_t frame) = 0;

    // The clock of SlotTimes' spans: the host's steady_clock (CLOCK_MONOTONIC, as µs) where the
    // host measures the simulation, or the backend's device clock, which clockBracket() samples so
    // that its spans can be put on the host axis (clock_sync.h).
    enum class Clock { Host, Device };
    virtual Clock simClock() const { return Clock::Host; }
    // A device clock reading between two host reads, the tightest of `tries`; nothing for
    // Clock::Host. Waits for the device: call outside the frame loop, with nothing in flight.
    virtual std::optional<ClockBracket> clockBracket(uint32_t tries) {
        (void)tries;
        return std::nullopt;
    }

    // The displayed image's level-0 texel at cell (x, y), read after each frame's output
    // (asynchronously on the GPU: the value arrives with finishedFrameTimes). Returns the latest.
    virtual void requestProbe(int x, int y) = 0;
    virtual std::optional<ProbeValue> probeValue() const = 0;

    virtual void brush(const sim::Brush& brush, const sim::ParamValues& params) = 0;
    virtual void reset(uint64_t seed) = 0;
    // Waits, at most `timeoutNs`, until all simulation work enqueued so far is finished; throws a
    // runtime error naming what is stuck on timeout, and reports a failed GPU side as such.
    virtual void finish(uint64_t timeoutNs) = 0;

    // Teardown, also after a failure, where every wait must end (Session's closeSession drives
    // these): whether the simulation's GPU work is done or has failed, polling up to `timeoutNs`;
    // releasing its waits on Vulkan once Vulkan will signal no more; releasing Vulkan's waits on
    // it once it will signal no more. `nextFrame` is the first frame never submitted.
    virtual bool simulationSettled(uint64_t timeoutNs) {
        (void)timeoutNs;
        return true;
    }
    // Each returns false when the release could not be made (the simulation's GPU side is broken).
    virtual bool releaseSimulationWaits(uint64_t nextFrame, uint64_t timeoutNs) {
        (void)nextFrame, (void)timeoutNs;
        return true;
    }
    virtual bool releaseVulkanWaits(uint64_t nextFrame, uint64_t timeoutNs) {
        (void)nextFrame, (void)timeoutNs;
        return true;
    }
    // What the two sides have done, for messages about a hang; empty where nothing crosses APIs.
    virtual std::string waitState() const { return {}; }
    // Throws the error of a simulation whose GPU side has failed (a CUDA kernel that faulted), so
    // that a frame wait reports the cause at once instead of timing out on its consequence.
    virtual void throwIfFailed() const {}
};

// `device` and `context` are the same VkDevice, as the foundation and as interop see it (the
// Session's device and interop). The staged backends use interop only to export their images
// (BackendConfig::exportOutputs).
// Throws usageError() when the simulation refuses the grid.
std::unique_ptr<SimBackend> createCpuBackend(const Device& device, const interop::Context& context,
                                             const BackendConfig& config);
#ifdef ESTUARY_HAVE_CUDA
// `cudaDevice` is the CUDA ordinal matched to the context's device by UUID.
std::unique_ptr<SimBackend> createCudaBackend(const interop::Context& context, VkCommandPool pool,
                                              const BackendConfig& config, int cudaDevice);
// No interop: the CUDA simulation's outputs go through host memory into staging buffers (the
// benchmark's "host-copy" mode, what tools without interop do).
std::unique_ptr<SimBackend> createHostCopyBackend(const Device& device,
                                                  const interop::Context& context,
                                                  const BackendConfig& config, int cudaDevice);
#endif

// The simulation's outputs for the config's grid, checked: throws usageError() naming the
// simulation when it cannot run on that grid (e.g. a depth for a 2D simulation).
sim::OutputLayout checkedOutputs(const BackendConfig& config);

} // namespace estuary
