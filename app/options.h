// Command-line options of `estuary`: one struct of plain values and a pure parser, so every rule
// about bad input is unit-tested without a GPU. A bad value yields exit code 2 and a message naming
// the option, the value and what is allowed. Numbers are decimal digits only; a path may not start
// with '-' ("-" alone is the standard output); an option the chosen mode would ignore is refused.
// What the file system says about the paths is checked later, by run_outputs.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace estuary {

enum class Backend { Auto, Cuda, Cpu };
const char* backendName(Backend backend);

// Who draws the simulation's images: the Vulkan renderer, or the OpenGL consumer importing the
// same Vulkan-exported images and semaphores (opengl/).
enum class Consumer { Vulkan, OpenGL };
const char* consumerName(Consumer consumer);
// How frames pass to the OpenGL consumer: GPU-side through timeline semaphores
// (GL_NV_timeline_semaphore) or a binary pair per slot (GL_EXT_semaphore_fd), or through host
// waits where OpenGL has no semaphores (auto: the best the context has).
enum class GlHandoff { Auto, Timeline, Binary, Host };
const char* glHandoffName(GlHandoff handoff);

enum class PresentMode { Fifo, Mailbox, Immediate };
const char* presentModeName(PresentMode mode);

// Benchmark modes (see docs/PERFORMANCE.md): GPU-side pipelined interop, a per-frame
// host-serialized round trip as the reference samples do it, and no interop at all (copy through
// host memory).
enum class BenchMode { Pipelined, Serialized, HostCopy };
const char* benchModeName(BenchMode mode);

// How the picture is drawn (--draw): rasterizing the view's fragment shader, or its compute twin
// into a storage image copied to the target (shaders/draw_main.glsl); Auto until the session knows
// the device (drawPathFor).
enum class DrawPath { Auto, Raster, Compute };
// How a volume split over slabs is drawn (--composite; SCALING.md): the display GPU gathers every
// slab and marches the whole volume, or each GPU marches its own slabs and the display GPU
// composites them (sort-last). Auto (the default) takes sort-last for one process's volumes of at
// least kSortLastCells cells over GPUs where sort-last can draw, gathering otherwise: the parser
// turns it into Gather where it would gather, and a run left with Auto draws sort-last if it gets
// the CUDA backend.
enum class Composite { Auto, Gather, SortLast };
// Where --composite auto draws sort-last: 512 x 512 x 1024 and up. Measured with both on two
// GPUs (SCALING.md, round four): sort-last won at 768³ and at 512 x 512 x 1024 and lost at 512³.
inline constexpr uint64_t kSortLastCells = uint64_t(1) << 28;
const char* drawPathName(DrawPath path);
// What --draw auto means, by measurement (docs/PERFORMANCE.md): raster in the window and for the
// OpenGL consumer (the parser settles those), else compute on GPUs (several times faster on the
// H100) and raster on CPU implementations such as lavapipe (compute measured ~15% slower there).
DrawPath drawPathFor(DrawPath requested, bool cpuDevice);

struct Extent {
    uint32_t width = 0;
    uint32_t height = 0;
    uint32_t depth = 1; // > 1 only for the grids of 3D simulations (--size WxHxD)
};

// "512x512", or "128x128x64" for a grid with a depth.
std::string gridName(const Extent& grid);
// The grid when --size is not given: 512x512, or 128x128x128 for 3D simulations.
Extent defaultGrid(uint32_t dimensions);

struct ParamSetting {
    std::string name;
    float value = 0;
};

struct Options {
    std::string simulation;           // a name from simulations.h; empty: the first listed there
    std::vector<ParamSetting> params; // --param NAME=VALUE, checked against the simulation
    std::string view;                 // --view NAME of the simulation's views; empty: its first
    int64_t particles = -1; // --particles, for simulations that carry them; -1: their default
    bool headless = false;
    uint32_t frames = 0;   // 0: 300 headless, until the window closes otherwise
    Extent grid{512, 512}; // default: 512x512, 128x128x128 for 3D simulations
    Extent resolution{768, 768};
    int stepsPerFrame = -1; // -1: the simulation's default
    Backend backend = Backend::Auto;
    Consumer consumer = Consumer::Vulkan;
    GlHandoff glHandoff = GlHandoff::Auto;
    int device = -1; // CUDA device ordinal; -1 picks the first that Vulkan also sees
    // The grid split into slabs along its slowest axis (--slabs; 0: one per GPU in use), over
    // --gpus GPUs (the display GPU first; NCCL between them). Splittable simulations only.
    uint32_t slabs = 0;
    uint32_t gpus = 1;
    double displayShare = 0; // --display-share: the display GPU's part of the planes; 0: default
    uint32_t halo = 0; // --halo: planes of each slab's halos; 0: automatic (sim::autoSlabHalo)
    std::string colormap = "viridis";
    std::string screenshot; // headless default: estuary.png
    // --record: the frames shown, into this .mp4/.mkv (estuary_record_start); empty: none.
    std::string record;
    uint32_t recordFps = 60, recordQuality = 23;
    std::string recordEncoder; // empty: the library's order (NVENC first)
    // --serve [ADDR:]PORT: the live picture to browsers (serving.h); empty: none.
    std::string serve, serveToken;
    bool serveAllowRemote = false, serveStats = false;
    bool arrows = false; // --arrows: velocity arrows over the picture (fluid)
    bool validate = false;
    uint32_t framesInFlight = 2; // 1..32; interactive default; --bench: kBenchFramesInFlight
    uint32_t handoffBatch = 1;   // --handoff-batch: frames whose draws go to the GPU together
    uint32_t fpsCap = 0;         // --fps-cap: frames started at most this often (0: no cap)
    uint64_t seed = 1;
    // Volumes (3D simulations): the orbit camera in degrees, the transfer function's opacity, the
    // slice view's axis (0 = x, 1 = y, 2 = z) and position (0..1)
    float cameraYawDegrees = 35, cameraPitchDegrees = 25;
    float opacity = 0.5f;
    uint32_t sliceAxis = 2;
    float slicePosition = 0.5f;
    // How every view is drawn (--draw). Auto stays only for headless and benchmark runs on the
    // Vulkan renderer (drawPathFor resolves it); the window rasterizes, since its swapchain images
    // are not wired to the compute draw's copy.
    DrawPath draw = DrawPath::Raster;
    // Replay each frame's CUDA work as one CUDA graph where the simulation allows it (--cuda-graphs
    // on, the default); off enqueues it call by call, for comparing the host's time per frame.
    bool cudaGraphs = true;
    Composite composite = Composite::Auto;
    // Window
    PresentMode presentMode = PresentMode::Fifo;
    bool noUi = false;
    // A colorbar beside the field or volume (--colorbar; on in the window, off headless).
    bool colorbar = false;
    // Axes in the simulation's units (--axes; on but in --bench).
    bool axes = true;
    // Benchmark
    bool bench = false;
    std::vector<BenchMode> benchModes; // --mode; all three for "all"
    uint32_t warmup = 200;
    std::string reportPath; // JSON
    std::string csvPath;    // one row per frame
    // --trace, headless and benchmark runs: every frame as a Chrome/Perfetto trace (trace.h)
    std::string tracePath;
};

// Measured on an H200 at 1024² (docs/PERFORMANCE.md): throughput rises with depth up to 8, where
// the cross-API latency is best hidden; deeper only adds memory.
inline constexpr uint32_t kBenchFramesInFlight = 8;
// The benchmark keeps every measured frame (exact nearest-rank percentiles, the per-frame CSV):
// at most this many per mode, about 80 MB of samples.
inline constexpr uint32_t kMaxBenchFrames = 1'000'000;
// A trace keeps its events in memory until the run ends, then writes them as JSON: a bound on
// both (about 1 KiB a frame, measured on lavapipe and the H100).
inline constexpr uint64_t kMaxTracedFrames = 200'000;

struct ParseOutcome {
    Options options;
    std::optional<int> exitNow; // set for --help, --version and bad usage (2)
    std::string message;        // what to print before exiting (stdout for 0, stderr otherwise)
};

ParseOutcome parseOptions(int argc, const char* const* argv);

// The estuary_colormap of --colormap's name (parseOptions checked it).
uint32_t colormapIndex(std::string_view name);

// "WxH" with both sides in [minSide, maxSide], or with `allowDepth` also "WxHxD"; nullopt
// otherwise.
std::optional<Extent> parseExtent(std::string_view text, uint32_t minSide, uint32_t maxSide,
                                  bool allowDepth = false);

} // namespace estuary
