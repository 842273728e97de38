// A simulation of cuda_sim (a SimDefinition) running on an estuary viewer, through the public API
// only (estuary.hpp): its outputs become the viewer's images and buffers, its visuals the viewer's
// views, and each frame() is one frame of the viewer. Three ways to run it:
//   cuda      — the CUDA simulation writes the Vulkan-exported outputs on its stream, between the
//               frame's wait (deferred past its steps, which touch only CUDA-private state) and
//               the frame's end; with --cuda-graphs the frame's work is replayed as a CUDA graph
//               keyed by everything it depends on;
//   cpu       — the CPU reference writes the frame's host memory, which the viewer uploads;
//   host-copy — the CUDA simulation writes private CUDA memory, copied through pinned host memory
//               into the frame's host memory (the benchmark's no-interop reference).
// The app owns the loop (headless, window, benchmark); this owns what differs per simulation.
#pragma once

#include "estuary/estuary.hpp"
#include "options.h"
#include "simulation.h"
#include "slabs.h"

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace estuary {

namespace ranks {
class Links;
}

enum class RunKind { Cuda, Cpu, HostCopy };
const char* runKindName(RunKind kind);

struct SimRunConfig {
    const sim::SimDefinition* simulation = nullptr;
    Extent grid;
    uint32_t particles = 0;
    uint64_t seed = 1;
    RunKind kind = RunKind::Cpu;
    bool cudaGraphs = true;
    uint32_t slabs = 1, gpus = 1; // the grid split into slabs over GPUs (sim::createSlabbed*)
    double displayShare = 0;      // of the planes on the display GPU's slabs; 0: the default
    uint32_t halo = 0;            // --halo; 0: automatic (sim::autoSlabHalo)
    int stepsPerFrame = 8;        // at the start: what the automatic halo covers
    // A job of several processes (rank_run.h): the slabs spread over its ranks (sim::createRanked*)
    ranks::Links* ranks = nullptr;
    // A split volume drawn sort-last (--composite; sim::enableSlabMarch): the simulation writes a
    // picture of the viewer's size, marched slab by slab under the viewer's camera, and a field
    // view shows it in place of the volume views. CUDA runs of one process only.
    bool sortLast = false;
    uint32_t view = 0;          // index into the simulation's visuals
    uint32_t colormap = 0;      // estuary_colormap
    bool colorbar = false;      // on the field or volume
    bool axes = false;          // around the field, or box axes around the volume
    bool arrows = false;        // velocity arrows shown from the start (SimDefinition::glyphs)
    float opacity = 0.5f;       // volumes
    uint32_t sliceAxis = 2;     // volumes
    float slicePosition = 0.5f; // volumes
    // Tests: channel 0 of texel (0, 0) of the shown image's level 0, and the last 4 bytes of each
    // buffer (a float), hold the frame's index instead of the simulation's value.
    bool stampFrames = false;
    // ESTUARY_FAULT=cuda-fault@N: the frame whose CUDA work launches a faulting kernel.
    std::optional<uint64_t> cudaFault;
};

// The split run's shape on `gpus` GPUs (one process: config.gpus; ranks: the job's size).
inline sim::SlabRunLayout slabRunLayout(const SimRunConfig& config, uint32_t gpus) {
    sim::SlabRunLayout layout;
    layout.slabs = config.slabs;
    layout.gpus = gpus;
    layout.halo = config.halo;
    layout.displayShare = config.displayShare;
    layout.stepsPerFrame = config.stepsPerFrame;
    layout.sortLast = config.sortLast;
    return layout;
}

// The halo of a job of CUDA ranks: one even slab per rank, the halo aimed across GPUs as one
// process's is (--halo, else sim::autoSlabHalo over the job's ranks).
inline uint32_t cudaRanksHalo(const SimRunConfig& config, uint32_t ranks) {
    if (config.halo > 0) return config.halo;
    const sim::SlabPlan even = sim::planSlabRun(
        {config.grid.width, config.grid.height, config.grid.depth}, slabRunLayout(config, 1));
    uint32_t thinnest = even.count.front();
    for (uint32_t c : even.count)
        thinnest = c < thinnest ? c : thinnest;
    return sim::autoSlabHalo(thinnest, ranks, config.stepsPerFrame);
}

// A frame's simulation as the host measured it (cpu and host-copy runs): its time, and its spans
// in steady-clock µs: steps (for host-copy: the CUDA work and the wait for its download), then
// the output write.
struct HostSimTimes {
    uint64_t frame = UINT64_MAX;
    double simMs = 0;
    double startUs = 0, stepsEndUs = 0, endUs = 0;
};

class SimRun {
  public:
    // Throws estuary::Error: usage (the simulation refuses the grid), unsupported (no CUDA, or
    // the run does not fit in memory).
    static std::unique_ptr<SimRun> create(const Viewer& viewer, const SimRunConfig& config);
    // Its views go first, then its images and buffers (the viewer waits for the frames using
    // them). A derived run's destructor has let its own CUDA work finish before.
    virtual ~SimRun();

    virtual const char* name() const = 0;
    // One frame of the viewer: the simulation's `steps` steps and its outputs. `inspect` (tests)
    // is called just before the frame ends.
    void frame(const sim::ParamValues& params, int steps,
               const std::function<void(const Frame&)>& inspect = {});
    virtual void brush(const sim::Brush& brush, const sim::ParamValues& params) = 0;
    virtual void reset(uint64_t seed) = 0;

    const SimRunConfig& config() const { return config_; }
    const sim::OutputLayout& layout() const { return layout_; }
    const Image& image(uint32_t index) const { return images_.at(index); }
    const Buffer& buffer(uint32_t index) const { return buffers_.at(index); }
    // The host's measure of a recent frame (the last 64), where the simulation runs on the host.
    std::optional<HostSimTimes> hostTimes(uint64_t frame) const;
    // --trace: a run split across GPUs marks each GPU's work from now on; returns the GPUs traced
    // (0: none, the frame's stream says it all). takeGpuSpans: those completed, never waiting.
    virtual size_t traceGpus() { return 0; }
    virtual std::vector<sim::GpuSpan> takeGpuSpans() const { return {}; }

    uint32_t viewIndex() const { return shown_; }
    void showView(uint32_t index);
    bool particlesShown() const { return particlesShown_; }
    // Velocity arrows (SimDefinition::glyphs): whether the simulation has them, and showing them.
    bool hasArrows() const { return glyphs_.get() != nullptr; }
    bool arrowsShown() const { return arrowsShown_; }
    void showArrows(bool shown);
    void showParticles(bool shown) { particlesShown_ = shown; }
    uint32_t particles() const { return config_.particles; }
    // The points drawn and their size, as the simulation's parameters say now.
    void updatePoints(const sim::ParamValues& params);
    void setColormap(uint32_t colormap);

  protected:
    SimRun(const Viewer& viewer, const SimRunConfig& config, estuary_writer writer);
    virtual void runFrame(const sim::ParamValues& params, int steps,
                          const std::function<void(const Frame&)>& inspect) = 0;
    void keepHostTimes(const HostSimTimes& times) { host_[times.frame % host_.size()] = times; }
    // The stamp's value in a texel of the shown image's format (4 floats or halves).
    void stampTexel(void* texel, uint64_t frame) const;

    const Viewer& viewer_;
    SimRunConfig config_;
    sim::OutputLayout layout_;
    std::vector<Image> images_;
    std::vector<Buffer> buffers_;

  private:
    // After images_ and buffers_: the views go before what they draw.
    std::vector<View> views_; // one per visual
    View picture_;            // sortLast: the composited picture (the last image)
    View points_;
    View glyphs_;
    bool arrowsShown_ = false;
    uint32_t shown_ = 0;
    bool particlesShown_ = true;
    uint32_t drawnCount_ = UINT32_MAX; // what the points view was last told
    float drawnSize_ = 0;
    std::array<HostSimTimes, 64> host_{};
};

// The simulation's outputs for the grid, checked: a usage error naming the simulation when it
// cannot run on that grid (a depth for a 2D simulation, too many particles, ...).
sim::OutputLayout checkedOutputs(const SimRunConfig& config);

} // namespace estuary
