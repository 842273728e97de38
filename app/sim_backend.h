// The simulation side of a frame, behind one interface so the frame loop is the same for CUDA and
// CPU. A backend owns a ring of field images (one per frame in flight) and the simulation. The
// CUDA backend writes the images from CUDA and synchronizes on the GPU; the CPU
// backend simulates on the host and uploads through staging buffers.
#pragma once

#include "frame_timing.h"
#include "gray_scott.h"
#include "options.h"
#include "resources.h"

#include <memory>
#include <optional>
#include <string>

namespace estuary {

struct BackendConfig {
    Extent grid;
    uint32_t slots = 2;
    uint64_t seed = 1;
    // Tests of pipelining: texel (0, 0) of level 0 holds the frame index instead of the field,
    // so a reader can tell which frame's field it sees.
    bool stampFrameIndex = false;
};

// The cell the UI asked about and the latest value of v read there: the state behind
// requestProbe/probeValue, the same in every backend.
struct CellProbe {
    int x = -1, y = -1; // -1: no cell asked for (or outside the grid)
    std::optional<float> value;

    bool active() const { return x >= 0; }
    size_t index(int width) const { return size_t(y) * size_t(width) + size_t(x); }
    void request(int cellX, int cellY, int width, int height) {
        const bool inside = cellX >= 0 && cellY >= 0 && cellX < width && cellY < height;
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
    // The CUDA backend guards image reuse with GPU-side waits, so the host can run further ahead
    // than the image ring and stay off the critical path; backends that write host memory per
    // slot (staging buffers) must keep it equal to slotCount().
    virtual uint32_t hostRingSize() const { return slotCount(); }
    virtual const Image& fieldImage(uint32_t slot) const = 0;
    // Exported timeline the draw submission of frame f signals with f + 1, so the simulation can
    // wait for it on the GPU; VK_NULL_HANDLE where nothing outside Vulkan waits.
    virtual VkSemaphore drawnTimeline() const = 0;

    // Advances the simulation and produces frame `frame`'s field for slot frame % slotCount().
    // The caller has already waited (frames-in-flight limit) until the slot's previous frame was
    // drawn. Enqueues GPU work where it can; never waits on the GPU itself.
    virtual void simulate(uint64_t frame, const sim::GrayScottParams& params) = 0;
    // Vulkan commands around the draw of `frame`: make the field readable by the fragment shader
    // before, hand it back to the simulation after.
    virtual void recordBeforeDraw(VkCommandBuffer cmd, uint64_t frame) = 0;
    virtual void recordAfterDraw(VkCommandBuffer cmd, uint64_t frame) = 0;
    // What the draw submission of `frame` must wait on, if anything.
    virtual std::optional<VkSemaphoreSubmitInfo> drawWait(uint64_t frame) const = 0;

    // GPU/host timings of `frame`, once it has been drawn (call after the frames-in-flight wait,
    // before simulate() of frame + hostRingSize()). simMs: simulation and field write; waitMs: time
    // the simulation stream stalled waiting for Vulkan. NaN when nothing was measured.
    struct SlotTimes {
        double simMs = kNotMeasured;
        double waitMs = kNotMeasured;
    };
    virtual SlotTimes finishedFrameTimes(uint64_t frame) = 0;

    // Value of v at cell (x, y), sampled by each frame's simulation (asynchronously on the GPU: the
    // value arrives with finishedFrameTimes). Returns the latest available sample.
    virtual void requestProbe(int x, int y) = 0;
    virtual std::optional<float> probeValue() const = 0;

    virtual void paint(const sim::Brush& brush) = 0;
    virtual void reset(uint64_t seed) = 0;
    // Blocks until all simulation work is finished (teardown, tests).
    virtual void finish() = 0;
};

std::unique_ptr<SimBackend> createCpuBackend(const Device& device, VkCommandPool pool,
                                             const BackendConfig& config);
#ifdef ESTUARY_HAVE_CUDA
// `cudaDevice` is the CUDA ordinal matched to `device` by UUID.
std::unique_ptr<SimBackend> createCudaBackend(const Device& device, VkCommandPool pool,
                                              const BackendConfig& config, int cudaDevice);
// No interop: the CUDA simulation's field and mips go through host memory into staging buffers
// (the benchmark's "host-copy" mode, what tools without interop do).
std::unique_ptr<SimBackend> createHostCopyBackend(const Device& device, const BackendConfig& config,
                                                  int cudaDevice);
#endif

} // namespace estuary
