#include "options.h"
#include "serving.h"
#include "estuary/estuary.h"
#include "errors.h"
#include "job.h"
#include "output_file.h"
#include "simulations.h"
#include "slabs.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace estuary {

const char* backendName(Backend backend) {
    switch (backend) {
    case Backend::Cuda:
        return "cuda";
    case Backend::Cpu:
        return "cpu";
    default:
        return "auto";
    }
}

const char* consumerName(Consumer consumer) {
    return consumer == Consumer::OpenGL ? "opengl" : "vulkan";
}

const char* glHandoffName(GlHandoff handoff) {
    switch (handoff) {
    case GlHandoff::Timeline:
        return "timeline";
    case GlHandoff::Binary:
        return "binary";
    case GlHandoff::Host:
        return "host";
    default:
        return "auto";
    }
}

// A decimal number as people write one: an optional minus, digits with an optional point, an
// optional exponent; nothing else (no spaces, no "+", no hex, no nan or inf), finite. The one
// parser of every decimal option, so that none accepts what another refuses.
std::optional<float> parseDecimal(std::string_view s) {
    size_t i = 0;
    const auto digits = [&] {
        const size_t from = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9')
            ++i;
        return i - from;
    };
    if (i < s.size() && s[i] == '-') ++i;
    size_t mantissa = digits();
    if (i < s.size() && s[i] == '.') {
        ++i;
        mantissa += digits();
    }
    if (mantissa == 0) return std::nullopt;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        if (digits() == 0) return std::nullopt;
    }
    if (i != s.size()) return std::nullopt;
    float v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::optional<Extent> parseExtent(std::string_view text, uint32_t minSide, uint32_t maxSide,
                                  bool allowDepth) {
    const size_t x = text.find('x');
    if (x == std::string_view::npos) return std::nullopt;
    auto side = [&](std::string_view s) -> std::optional<uint32_t> {
        uint32_t v = 0;
        auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || end != s.data() + s.size() || s.empty() || v < minSide ||
            v > maxSide)
            return std::nullopt;
        return v;
    };
    const auto w = side(text.substr(0, x));
    const std::string_view rest = text.substr(x + 1);
    const size_t x2 = rest.find('x');
    if (x2 != std::string_view::npos) {
        if (!allowDepth) return std::nullopt;
        const auto h = side(rest.substr(0, x2));
        const auto d = side(rest.substr(x2 + 1));
        if (!w || !h || !d) return std::nullopt;
        return Extent{*w, *h, *d};
    }
    const auto h = side(rest);
    if (!w || !h) return std::nullopt;
    return Extent{*w, *h};
}

const char* drawPathName(DrawPath path) {
    switch (path) {
    case DrawPath::Auto:
        return "auto";
    case DrawPath::Raster:
        return "raster";
    case DrawPath::Compute:
        return "compute";
    }
    return "?";
}

DrawPath drawPathFor(DrawPath requested, bool cpuDevice) {
    if (requested != DrawPath::Auto) return requested;
    return cpuDevice ? DrawPath::Raster : DrawPath::Compute;
}

Extent defaultGrid(uint32_t dimensions) {
    return dimensions == 3 ? Extent{128, 128, 128} : Extent{512, 512};
}

std::string gridName(const Extent& grid) {
    return std::to_string(grid.width) + "x" + std::to_string(grid.height) +
           (grid.depth != 1 ? "x" + std::to_string(grid.depth) : std::string());
}

const char* presentModeName(PresentMode mode) {
    switch (mode) {
    case PresentMode::Mailbox:
        return "mailbox";
    case PresentMode::Immediate:
        return "immediate";
    default:
        return "fifo";
    }
}

const char* benchModeName(BenchMode mode) {
    switch (mode) {
    case BenchMode::Serialized:
        return "serialized";
    case BenchMode::HostCopy:
        return "host-copy";
    default:
        return "pipelined";
    }
}

namespace {

constexpr uint32_t kMaxGridSide = 16384;
// 3D grids: 2048³ cells is 32 GiB per float field already; the memory check refuses what does
// not fit long before this.
constexpr uint32_t kMaxVolumeSide = 2048;
constexpr uint32_t kMaxResolutionSide = 8192;

// The colormaps of estuary.h (estuary_colormap), by name.
constexpr const char* kColormapNames[] = {"viridis", "magma",    "cividis",  "inferno",
                                          "plasma",  "turbo",    "twilight", "coolwarm",
                                          "tab10",   "okabe_ito"};
static_assert(ESTUARY_COLORMAP_VIRIDIS == 0 && ESTUARY_COLORMAP_MAGMA == 1 &&
              ESTUARY_COLORMAP_TURBO == 5 && ESTUARY_COLORMAP_OKABE_ITO == 9 &&
              std::size(kColormapNames) == ESTUARY_COLORMAP_USER_FIRST);

std::string colormapList() {
    std::string s;
    for (const char* name : kColormapNames)
        s += (s.empty() ? "" : ", ") + std::string(name);
    return s;
}

std::optional<uint32_t> findColormap(std::string_view name) {
    for (uint32_t i = 0; i < std::size(kColormapNames); ++i)
        if (name == kColormapNames[i]) return i;
    return std::nullopt;
}

// CLI11 validators return an empty string when fine, else the message.
//
// Decimal digits only, checked before CLI11 converts: alone it reads 010 as octal 8, 0x10 as 16,
// and wraps -1 or a seed past 2^64 around to the largest value. A transform (it may change the
// text): leading zeros are dropped so that 010 reaches CLI11 as 10.
CLI::Validator wholeNumber(uint64_t min, uint64_t max) {
    return CLI::Validator(
        [min, max](std::string& value) -> std::string {
            const std::string allowed =
                " (allowed: " + std::to_string(min) + ".." + std::to_string(max) + ")";
            uint64_t v = 0;
            const char* last = value.data() + value.size();
            const auto [end, ec] = std::from_chars(value.data(), last, v);
            if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos)
                return "'" + value + "' is not a whole number in decimal digits" + allowed;
            if (ec == std::errc::result_out_of_range || v < min || v > max)
                return "'" + value + "' is out of range" + allowed;
            if (ec != std::errc() || end != last)
                return "'" + value + "' is not a number" + allowed;
            value.erase(0, std::min(value.find_first_not_of('0'), value.size() - 1));
            return {};
        },
        "N");
}

// A decimal in [min, max] (parseDecimal), checked before CLI11 converts it: alone it takes hex,
// leading spaces and nan.
CLI::Validator decimalNumber(float min, float max) {
    return CLI::Validator(
        [min, max](std::string& value) -> std::string {
            char allowed[96];
            std::snprintf(allowed, sizeof(allowed), " (allowed: a decimal number in %g..%g)",
                          double(min), double(max));
            const auto v = parseDecimal(value);
            if (!v) return "'" + value + "' is not a decimal number" + allowed;
            if (*v < min || *v > max) return "'" + value + "' is out of range" + allowed;
            return {};
        },
        "X");
}

// The same file as far as spelling tells: "-" and /dev/stdout are one, "./a" and "a" are one.
std::string outputKey(const std::string& path) {
    if (const auto fd = descriptorNamedBy(path)) return "descriptor " + std::to_string(*fd);
    return std::filesystem::path(path).lexically_normal().string();
}

// A path that starts with '-' is almost always a forgotten value swallowing the next option
// (`--screenshot --no-ui`); "-" alone is the standard output.
CLI::Validator outputPath() {
    return CLI::Validator(
        [](std::string& value) -> std::string {
            if (value.size() > 1 && value[0] == '-')
                return "'" + value + "' looks like an option, not a path (a file whose name " +
                       "starts with '-' is written as ./" + value + ")";
            return {};
        },
        "PATH");
}

CLI::Validator extentValidator(uint32_t maxSide, bool allowDepth = false) {
    return CLI::Validator(
        [maxSide, allowDepth](std::string& value) -> std::string {
            if (parseExtent(value, 1, maxSide, allowDepth)) return {};
            if (allowDepth)
                return "'" + value + "' is not a size WxH or WxHxD (allowed: two or three " +
                       "integers 1.." + std::to_string(maxSide) +
                       " joined by 'x', e.g. 512x512, or 128x128x128 for 3D simulations)";
            return "'" + value + "' is not a size WxH (allowed: two integers 1.." +
                   std::to_string(maxSide) + " joined by 'x', e.g. 512x512)";
        },
        allowDepth ? "WxH[xD]" : "WxH");
}

// "NAME=VALUE" → a setting checked against the simulation's table; the error names the parameter,
// the value and what is allowed.
std::optional<std::string> parseParam(const sim::SimDefinition& def, const std::string& text,
                                      ParamSetting& out) {
    const size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        return "--param '" + text + "' is not NAME=VALUE (parameters of " + def.name + ": " +
               sim::paramNames(def) + ")";
    out.name = text.substr(0, eq);
    const std::string value = text.substr(eq + 1);
    const int index = sim::findParam(def, out.name);
    if (index < 0)
        return "--param " + text + ": " + def.name + " has no parameter '" + out.name +
               "' (allowed: " + sim::paramNames(def) + ")";
    const sim::ParamSpec& spec = def.params[size_t(index)];
    const auto parsed = parseDecimal(value);
    if (parsed) out.value = *parsed;
    if (!parsed)
        return "--param " + text + ": '" + value + "' is not a number (" + spec.name + " of " +
               def.name + " takes " + sim::paramRange(spec) + ")";
    if (std::string bad = sim::checkParamValue(spec, out.value); !bad.empty())
        return "--param " + text + " for " + def.name + ": " + bad;
    return std::nullopt;
}

// "YAW,PITCH" in degrees, pitch within ±85 (the orbit camera stops short of the poles).
std::optional<std::pair<float, float>> parseCamera(const std::string& text) {
    const size_t comma = text.find(',');
    if (comma == std::string::npos) return std::nullopt;
    const auto yaw = parseDecimal(std::string_view(text).substr(0, comma));
    const auto pitch = parseDecimal(std::string_view(text).substr(comma + 1));
    if (!yaw || !pitch || std::abs(*pitch) > 85.0f) return std::nullopt;
    return std::pair(*yaw, *pitch);
}

// The names of the simulations `keep` accepts, comma-separated, for messages ("none" if none).
template <class Keep> std::string simulationNamesWhere(Keep keep) {
    std::string names;
    for (const sim::SimDefinition& def : simulations())
        if (keep(def)) names += (names.empty() ? "" : ", ") + def.name;
    return names.empty() ? "none" : names;
}

std::string volumeSimulationNames() {
    return simulationNamesWhere([](const sim::SimDefinition& d) { return d.dimensions == 3; });
}

std::string splittableSimulationNames() {
    return simulationNamesWhere([](const sim::SimDefinition& d) { return d.splittable; });
}

std::string particleSimulationNames() {
    return simulationNamesWhere([](const sim::SimDefinition& d) { return d.particles.max > 0; });
}

ParseOutcome& usage(ParseOutcome& out, const std::string& problem) {
    out.exitNow = 2;
    out.message = "estuary: " + problem + "\nRun 'estuary --help' for usage.";
    return out;
}

// CLI11 takes `--screenshot ""` as given, with no value at all.
std::optional<std::string> emptyValue(const CLI::App& app) {
    for (const CLI::Option* option : app.get_options()) {
        if (option->get_items_expected_min() == 0 || option->count() == 0) continue;
        const auto& values = option->results();
        if (values.empty() ||
            std::any_of(values.begin(), values.end(), [](const auto& v) { return v.empty(); }))
            return option->get_name() + " needs a value, got an empty one";
    }
    return std::nullopt;
}

// Options the chosen mode would ignore are refused rather than silently dropped, and two outputs
// may not name the same file (as spelled here; run_outputs.h also compares what they point to).
std::optional<std::string> modeProblem(const CLI::App& app, const Options& o) {
    const auto given = [&](const char* name) { return app.get_option(name)->count() > 0; };
    if (o.consumer != Consumer::OpenGL && given("--gl-handoff"))
        return std::string("--gl-handoff is an option of the OpenGL consumer: add --consumer "
                           "opengl");
    if (o.backend == Backend::Cpu)
        for (const char* name : {"--device", "--cuda-graphs", "--gpus"})
            if (given(name))
                return std::string(name) + " is an option of the CUDA backend; --backend cpu "
                                           "uses no CUDA device: remove it";
    if (given("--trace")) {
        const uint64_t traced = uint64_t(o.frames) * (o.bench ? o.benchModes.size() : 1);
        if (traced > kMaxTracedFrames)
            return "--trace over " + std::to_string(traced) +
                   " frames: a trace keeps about 1 KiB "
                   "of events per frame in memory and on disk, so it holds at most " +
                   std::to_string(kMaxTracedFrames) + " frames; trace a shorter run";
    }
    if (given("--trace") && !o.bench && !o.headless)
        return std::string("--trace is for --headless and --bench runs (the window is not traced)");
    if (given("--trace") && o.consumer == Consumer::OpenGL)
        return std::string("--trace traces the Vulkan renderer's frames; --consumer opengl is not "
                           "traced");
    if (!o.record.empty()) {
        const std::string extension = std::filesystem::path(o.record).extension().string();
        if (extension != ".mp4" && extension != ".mkv")
            return "--record " + o.record + ": the file must end in .mp4 or .mkv";
    } else {
        for (const char* name : {"--record-fps", "--record-quality", "--record-encoder"})
            if (given(name)) return std::string(name) + " sets the recording: add --record PATH";
    }
    if (o.bench) {
        for (const char* name :
             {"--screenshot", "--colormap", "--present-mode", "--no-ui", "--colorbar", "--record"})
            if (given(name))
                return std::string(name) +
                       " is ignored by --bench, which writes no image and opens no window: "
                       "remove it";
        if (o.frames > kMaxBenchFrames)
            return "--frames " + std::to_string(o.frames) + " is above the benchmark's limit of " +
                   std::to_string(kMaxBenchFrames) +
                   " frames per mode: every measured frame is kept for exact percentiles and the "
                   "per-frame CSV (80 bytes each); run several benchmarks for more";
        if (!o.reportPath.empty() && !o.csvPath.empty() &&
            outputKey(o.reportPath) == outputKey(o.csvPath))
            return "--report " + o.reportPath + " and --csv " + o.csvPath +
                   " name the same file: give each its own";
        return std::nullopt;
    }
    for (const char* name : {"--mode", "--warmup", "--report", "--csv"})
        if (given(name)) return std::string(name) + " is a benchmark option: add --bench";
    if (o.headless)
        for (const char* name : {"--present-mode", "--no-ui"})
            if (given(name) && !(o.serve.size() && std::string(name) == "--no-ui"))
                return std::string(name) +
                       " is a window option, ignored by --headless, which opens no window "
                       "(--no-ui is kept with --serve, whose pages see the panels): remove it";
    return std::nullopt;
}

// In a job of several ranks (rank_run.h) rank 0 holds --display-share of the planes, whatever
// --gpus says. Bad job variables count as a job here: the run reports them, naming them.
bool inJobOfRanks() {
    try {
        return ranks::jobFromEnvironment().has_value();
    } catch (const Error&) {
        return true;
    }
}

} // namespace

ParseOutcome parseOptions(int argc, const char* const* argv) {
    ParseOutcome out;
    Options& o = out.options;
    CLI::App app{"estuary: CUDA simulations written every frame into Vulkan-exported images "
                 "and drawn by Vulkan, synchronized on the GPU with timeline semaphores.\n"
                 "Exit codes: 0 ok, 1 runtime failure, 2 bad usage, 3 unsupported environment, "
                 "130/143/129 stopped by SIGINT/SIGTERM/SIGHUP (what was asked is still written)."};
    app.name("estuary");
    std::string grid, resolution = "768x768", backend = "auto";
    bool version = false, listSims = false;
    std::vector<std::string> params;
    app.add_option("--sim", o.simulation,
                   "Simulation (default " + simulations().front().name + "): " + simulationNames() +
                       "; --list-sims describes them")
        ->check(CLI::Validator(
            [](std::string& value) -> std::string {
                if (findSimulation(value)) return {};
                return "'" + value + "' is not a simulation (allowed: " + simulationNames() + ")";
            },
            "NAME"));
    app.add_flag("--list-sims", listSims, "List the simulations, one per line, and exit");
    app.add_option("--param", params,
                   "Set a simulation parameter, NAME=VALUE (repeatable; the window shows them)")
        ->allow_extra_args(false); // one NAME=VALUE per --param; repeated ones accumulate
    std::string particles;
    app.add_option("--view", o.view,
                   "What the picture shows, one of the simulation's views (--list-sims names "
                   "them; default: its first)");
    app.add_option("--particles", particles,
                   "Particles, for simulations that carry them (default: theirs, smaller on "
                   "the CPU backend; 0: none)")
        ->transform(wholeNumber(0, UINT32_MAX));
    app.add_flag("--headless", o.headless, "Render offscreen, no window; writes a screenshot");
    app.add_option("--frames", o.frames,
                   "Frames to run (default: 300 headless, until closed; --bench: 5000, at most " +
                       std::to_string(kMaxBenchFrames) + ")")
        ->transform(wholeNumber(1, 100'000'000));
    app.add_option("--size", grid,
                   "Simulation grid WxH, or WxHxD for 3D simulations (default: 512x512, "
                   "128x128x128 in 3D)")
        ->check(extentValidator(kMaxGridSide, true));
    app.add_option("--resolution", resolution, "Output image / window size WxH")
        ->check(extentValidator(kMaxResolutionSide));
    app.add_option("--steps-per-frame", o.stepsPerFrame,
                   "Simulation steps per frame (default: the simulation's)")
        ->transform(wholeNumber(0, 10000));
    app.add_option("--backend", backend, "Simulation backend: auto, cuda or cpu")
        ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
    std::string consumer = "vulkan", glHandoff = "auto";
    app.add_option("--consumer", consumer,
                   "Who draws the images: vulkan (the renderer) or opengl (OpenGL imports the "
                   "same Vulkan-exported images and semaphores)")
        ->check(CLI::IsMember({"vulkan", "opengl"}));
    app.add_option("--gl-handoff", glHandoff,
                   "How frames pass to the OpenGL consumer: auto, timeline, binary (GPU-side "
                   "semaphores) or host (host waits)")
        ->check(CLI::IsMember({"auto", "timeline", "binary", "host"}));
    app.add_option("--device", o.device, "CUDA device ordinal (NVIDIA devices only)")
        ->transform(wholeNumber(0, 255));
    app.add_option("--colormap", o.colormap, "Colormap: " + colormapList())
        ->check(CLI::Validator(
            [](std::string& value) -> std::string {
                if (findColormap(value)) return {};
                return "'" + value + "' is not a colormap (allowed: " + colormapList() + ")";
            },
            "NAME"));
    std::string camera, sliceAxis, draw, cudaGraphs, composite;
    app.add_option("--cuda-graphs", cudaGraphs,
                   "CUDA backend: replay each frame's CUDA work as one CUDA graph where the "
                   "simulation allows it (on, the default), or enqueue it call by call (off)")
        ->check(CLI::IsMember({"on", "off"}));
    app.add_option("--draw", draw,
                   "Draw the view by rasterizing its fragment shader, or by its compute twin "
                   "(headless and --bench only); auto (default): compute there, raster in the "
                   "window")
        ->check(CLI::IsMember({"auto", "raster", "compute"}));
    app.add_option("--camera", camera,
                   "Volumes: the orbit camera's YAW,PITCH in degrees (default 35,25; the window: "
                   "drag to rotate, wheel to zoom, R to reset)");
    app.add_option("--composite", composite,
                   "Volumes split over slabs: gather every slab on the display GPU and march the "
                   "whole volume there, or march each slab on its own GPU and composite them "
                   "front to back on the display GPU (sort-last; headless and --bench runs of "
                   "one process over GPUs). Default: auto, sort-last there for volumes of 2^28 "
                   "cells (512x512x1024) and more, else gather")
        ->check(CLI::IsMember({"auto", "gather", "sort-last"}));
    app.add_option("--opacity", o.opacity,
                   "Volumes: extinction per voxel at the colormap's end, 0..50 (default 0.5)")
        ->check(decimalNumber(0.0f, 50.0f));
    app.add_option("--slice-axis", sliceAxis, "Volumes: the slice view's axis, x, y or z")
        ->check(CLI::IsMember({"x", "y", "z"}));
    app.add_option("--slice-position", o.slicePosition,
                   "Volumes: the slice view's position along its axis, 0..1 (default 0.5)")
        ->check(decimalNumber(0.0f, 1.0f));
    app.add_option("--screenshot", o.screenshot,
                   "Write the last frame to this PNG (headless default: estuary.png; - is stdout)")
        ->check(outputPath());
    app.add_option("--record", o.record,
                   "Record the frames shown to this video file, .mp4 or .mkv (H.264/HEVC through "
                   "FFmpeg: NVENC where the GPU has it, else x264)")
        ->check(outputPath());
    app.add_option("--record-fps", o.recordFps, "The recording's frame rate, 1..240 (default 60)")
        ->transform(wholeNumber(1, 240));
    app.add_option("--record-quality", o.recordQuality,
                   "The recording's quality, 1..51, lower is better (CRF; default 23)")
        ->transform(wholeNumber(1, 51));
    app.add_option("--record-encoder", o.recordEncoder,
                   "An FFmpeg encoder for the recording (h264_nvenc, libx264, libx265, ...)");
    addServeOptions(app, o);
    app.add_flag("--arrows", o.arrows,
                 "Velocity arrows over the picture, for simulations with a velocity field "
                 "(fluid); the window's A key toggles them");
    app.add_flag("--validate", o.validate,
                 "Enable the Khronos validation layer; any message makes the exit code non-zero");
    app.add_option("--frames-in-flight", o.framesInFlight,
                   "Frames in flight over a ring of shared images")
        ->transform(wholeNumber(1, 32));
    app.add_option("--handoff-batch", o.handoffBatch,
                   "Headless and --bench: the draws of N consecutive frames go to the GPU in one "
                   "submission after the last one's CUDA work, whose CUDA work runs back to back, "
                   "so the GPU switches between CUDA and Vulkan once per N frames (1..frames in "
                   "flight; default 1)")
        ->transform(wholeNumber(1, 32));
    app.add_option("--seed", o.seed, "Seed of the initial condition")
        ->transform(wholeNumber(0, UINT64_MAX));
    app.add_option("--fps-cap", o.fpsCap,
                   "Start frames on an even grid of N per second (bench, headless and window; "
                   "the bench reports the cadence, p99/p50 of frame intervals)")
        ->transform(wholeNumber(1, 100000));
    app.add_option("--slabs", o.slabs,
                   "Split the grid into N slabs along its slowest axis, each stepped on its own "
                   "with halos exchanged (default: one per GPU of --gpus); the picture is the "
                   "unsplit run's, bit for bit. Simulations: " +
                       splittableSimulationNames())
        ->transform(wholeNumber(1, 4096));
    app.add_option("--gpus", o.gpus,
                   "CUDA backend: spread the slabs over N GPUs (the display GPU first), halos "
                   "by peer copies, or through NCCL where the GPUs cannot reach each other's "
                   "memory (default 1)")
        ->transform(wholeNumber(1, 64));
    app.add_option("--display-share", o.displayShare,
                   "With --gpus 2 or more: the part of the grid's planes the display GPU steps "
                   "(0.05-0.95; default: 0.8 of an even share, 0.4 on two GPUs; an even share "
                   "for volumes drawn sort-last). Gathering, the display GPU also writes the "
                   "outputs and draws, so a smaller share balances the GPUs")
        ->check(CLI::Range(0.05, 0.95));
    app.add_option("--halo", o.halo,
                   "Planes of each slab's halos, the most steps between two exchanges (1-" +
                       std::to_string(sim::kMaxSlabHalo) +
                       ", at most the thinnest slab; default: 4 on one GPU, across GPUs a "
                       "frame's steps where the slabs are thick enough, so one exchange a frame)")
        ->transform(wholeNumber(1, sim::kMaxSlabHalo));
    std::string presentMode = "fifo", benchMode = "pipelined";
    CLI::Option* framesInFlight = app.get_option("--frames-in-flight");
    CLI::Option* frames = app.get_option("--frames");
    app.add_option("--present-mode", presentMode, "Window present mode: fifo, mailbox or immediate")
        ->check(CLI::IsMember({"fifo", "mailbox", "immediate"}));
    app.add_flag("--no-ui", o.noUi,
                 "Hide the Dear ImGui overlay (H toggles it); the window's, or with --headless "
                 "--serve the served picture's");
    std::string colorbar = "auto";
    app.add_option("--colorbar", colorbar,
                   "A colorbar beside the field: on, off or auto (on in the window, off headless)")
        ->check(CLI::IsMember({"on", "off", "auto"}));
    std::string axes = "auto";
    app.add_option("--axes", axes,
                   "Axes in the simulation's units around the field (box axes around a volume): "
                   "on, off or auto (on, but off in --bench, which shows no picture)")
        ->check(CLI::IsMember({"on", "off", "auto"}));
    app.add_flag("--bench", o.bench, "Benchmark (headless): time frames per mode and report");
    app.add_option("--mode", benchMode, "Benchmark mode: pipelined, serialized, host-copy or all")
        ->check(CLI::IsMember({"pipelined", "serialized", "host-copy", "all"}));
    app.add_option("--warmup", o.warmup, "Benchmark frames run before timing starts")
        ->transform(wholeNumber(0, 1'000'000));
    app.add_option("--report", o.reportPath, "Benchmark report (JSON) path; - is stdout")
        ->check(outputPath());
    app.add_option("--csv", o.csvPath, "Benchmark per-frame CSV path; - is stdout")
        ->check(outputPath());
    app.add_option("--trace", o.tracePath,
                   "Headless and benchmark runs: write every frame's CUDA, Vulkan and host spans "
                   "on one time axis as a Chrome/Perfetto trace (JSON) to this path")
        ->check(outputPath());
    app.add_flag("--version", version, "Print the version and exit");

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        out.exitNow = 0;
        out.message = app.help();
        return out;
    } catch (const CLI::ParseError& e) {
        out.exitNow = 2;
        out.message = std::string("estuary: ") + e.what() + "\nRun 'estuary --help' for usage.";
        return out;
    }
    if (const auto problem = emptyValue(app)) return usage(out, *problem);
    if (version) {
        out.exitNow = 0;
        out.message = "estuary " ESTUARY_VERSION;
        return out;
    }
    if (listSims) {
        out.exitNow = 0;
        out.message = listSimulations();
        out.message.pop_back(); // main prints a newline
        return out;
    }
    const sim::SimDefinition& def = *findSimulation(o.simulation);
    o.simulation = def.name;
    for (const std::string& text : params) {
        ParamSetting setting;
        if (const auto problem = parseParam(def, text, setting)) return usage(out, *problem);
        o.params.push_back(setting);
    }
    if (!o.view.empty() && sim::findView(def, o.view) < 0)
        return usage(out, "--view " + o.view + " is not a view of " + def.name +
                              " (allowed: " + sim::viewNames(def) + ")");
    if (!particles.empty()) {
        if (def.particles.max == 0)
            return usage(out, "--particles: " + def.name +
                                  " carries no particles (simulations with particles: " +
                                  particleSimulationNames() + ")");
        const uint64_t count = std::stoull(particles); // decimal digits in range: checked above
        if (count > def.particles.max)
            return usage(out, "--particles " + particles + " for " + def.name +
                                  ": allowed is a whole number in 0.." +
                                  std::to_string(def.particles.max));
        o.particles = int64_t(count);
    }
    if (grid.empty())
        o.grid = defaultGrid(def.dimensions);
    else
        o.grid = *parseExtent(grid, 1, kMaxGridSide, true);
    if (def.dimensions == 3 && o.grid.depth == 1 && std::count(grid.begin(), grid.end(), 'x') == 2)
        return usage(out, "--size " + grid + ": a depth of 1 is a plane, not a volume; " +
                              def.name + " needs a depth of at least 2 (e.g. 128x128x128)");
    if (def.dimensions == 3 && o.grid.depth == 1)
        return usage(out, "--size " + grid + ": " + def.name +
                              " is a 3D simulation; give its grid as WxHxD, e.g. 128x128x128");
    if (def.dimensions != 3 && o.grid.depth != 1)
        return usage(out, "--size " + grid + ": " + def.name +
                              " is a 2D simulation; give its grid as WxH (3D simulations: " +
                              volumeSimulationNames() + ")");
    if (o.grid.depth > kMaxVolumeSide ||
        (def.dimensions == 3 && std::max(o.grid.width, o.grid.height) > kMaxVolumeSide))
        return usage(out, "--size " + grid + ": a 3D grid's sides are at most " +
                              std::to_string(kMaxVolumeSide));
    o.resolution = *parseExtent(resolution, 1, kMaxResolutionSide);
    o.backend = backend == "cuda" ? Backend::Cuda : backend == "cpu" ? Backend::Cpu : Backend::Auto;
    o.consumer = consumer == "opengl" ? Consumer::OpenGL : Consumer::Vulkan;
    if (def.dimensions == 3 && o.consumer == Consumer::OpenGL)
        return usage(out, "--consumer opengl draws 2D fields; " + def.name +
                              " is a 3D simulation, drawn by the Vulkan renderer (--consumer "
                              "vulkan)");
    for (const char* volumeOnly : {"--camera", "--opacity", "--slice-axis", "--slice-position"})
        if (def.dimensions != 3 && app.count(volumeOnly) > 0)
            return usage(out, std::string(volumeOnly) + " is an option of 3D simulations (" +
                                  volumeSimulationNames() + "); " + def.name + " is 2D");
    if (!camera.empty()) {
        const auto angles = parseCamera(camera);
        if (!angles)
            return usage(out, "--camera '" + camera +
                                  "' is not YAW,PITCH in degrees (allowed: yaw any number, "
                                  "pitch -85..85, e.g. 35,25)");
        o.cameraYawDegrees = angles->first;
        o.cameraPitchDegrees = angles->second;
    }
    const bool offscreen = o.headless || o.bench;
    o.draw = draw == "compute"  ? DrawPath::Compute
             : draw == "raster" ? DrawPath::Raster
             : offscreen        ? DrawPath::Auto
                                : DrawPath::Raster;
    if (o.draw == DrawPath::Compute && !offscreen)
        return usage(out, "--draw compute is for --headless and --bench runs (the window draws "
                          "its swapchain images with --draw raster)");
    o.cudaGraphs = cudaGraphs != "off";
    o.composite = composite == "sort-last" ? Composite::SortLast
                  : composite == "gather"  ? Composite::Gather
                                           : Composite::Auto;
    if (o.consumer == Consumer::OpenGL) {
        if (draw == "compute")
            return usage(out, "--draw compute is a path of the Vulkan renderer; --consumer "
                              "opengl rasterizes");
        o.draw = DrawPath::Raster;
    }
    if (!sliceAxis.empty()) o.sliceAxis = sliceAxis == "x" ? 0 : sliceAxis == "y" ? 1 : 2;
    o.glHandoff = glHandoff == "timeline" ? GlHandoff::Timeline
                  : glHandoff == "binary" ? GlHandoff::Binary
                  : glHandoff == "host"   ? GlHandoff::Host
                                          : GlHandoff::Auto;
    o.presentMode = presentMode == "mailbox"     ? PresentMode::Mailbox
                    : presentMode == "immediate" ? PresentMode::Immediate
                                                 : PresentMode::Fifo;
    if (benchMode == "all")
        o.benchModes = {BenchMode::Pipelined, BenchMode::Serialized, BenchMode::HostCopy};
    else
        o.benchModes = {benchMode == "serialized"  ? BenchMode::Serialized
                        : benchMode == "host-copy" ? BenchMode::HostCopy
                                                   : BenchMode::Pipelined};
    if (const auto problem = modeProblem(app, o)) return usage(out, *problem);
    if (const auto problem = serveProblem(app, o)) return usage(out, *problem);
    if ((app.count("--slabs") > 0 || app.count("--gpus") > 0) && !def.splittable)
        return usage(
            out, "--slabs and --gpus split a stencil simulation's grid; " + def.name +
                     " does not split (simulations that do: " + splittableSimulationNames() + ")");
    if (o.slabs == 0) o.slabs = o.gpus;
    if (o.slabs < o.gpus)
        return usage(out, "--slabs " + std::to_string(o.slabs) + " for --gpus " +
                              std::to_string(o.gpus) +
                              ": every GPU needs at least one slab (allowed: --slabs " +
                              std::to_string(o.gpus) + " or more)");
    if (app.count("--display-share") > 0 && o.gpus < 2 && !inJobOfRanks())
        return usage(out, "--display-share " + std::to_string(o.displayShare) +
                              " needs --gpus 2 or more, or a job of several ranks: it is the "
                              "display GPU's (rank 0's) part of a grid split over GPUs (ranks)");
    if (o.slabs > 1) {
        try {
            sim::SlabRunLayout layout;
            layout.slabs = o.slabs;
            layout.gpus = o.gpus;
            layout.halo = o.halo;
            layout.displayShare = o.displayShare;
            layout.stepsPerFrame = o.stepsPerFrame >= 0 ? o.stepsPerFrame : def.stepsPerFrame;
            (void)sim::planSlabRun({o.grid.width, o.grid.height, o.grid.depth}, layout);
        } catch (const Error& e) {
            return usage(out, e.what());
        }
    }
    // The view the run starts with; a volume's is ray-marched unless it is the slice.
    const sim::Visual& view =
        def.views[size_t(std::max(o.view.empty() ? 0 : sim::findView(def, o.view), 0))];
    const bool slice = view.fragmentShader == "volume_slice.frag";
    // Offscreen, the view cannot change: options of the other 3D view would be ignored.
    if (def.dimensions == 3 && offscreen) {
        static constexpr const char* kVolumeOnly[] = {"--camera", "--opacity"};
        static constexpr const char* kSliceOnly[] = {"--slice-axis", "--slice-position"};
        for (const char* name : slice ? kVolumeOnly : kSliceOnly)
            if (app.count(name) > 0)
                return usage(out, std::string(name) + " does not apply to the " + view.name +
                                      " view this run draws (" +
                                      (slice ? "--camera and --opacity are the volume view's"
                                             : "--slice-axis and --slice-position are the slice "
                                               "view's") +
                                      "; headless and --bench runs do not change views)");
    }
    if (o.composite != Composite::Gather) {
        const bool volume = def.dimensions == 3 && def.splittable;
        const std::string slabs = "--slabs or --gpus of 2 to " +
                                  std::to_string(sim::kMaxMarchSlabs) + ", got " +
                                  std::to_string(o.slabs);
        const char* why = slice ? "the ray-marched volume view, not a slice"
                          : o.slabs < 2 || o.slabs > sim::kMaxMarchSlabs ? slabs.c_str()
                          : !offscreen ? "a headless or --bench run (in a window the orbit camera "
                                         "follows the volume view)"
                          : !o.serve.empty() ? "a run without --serve (a page turns the volume "
                                               "view's camera)"
                          : o.backend == Backend::Cpu ? "the CUDA backend"
                          : inJobOfRanks()            ? "one process (ranks gather for now)"
                                                      : nullptr;
        if (o.composite == Composite::SortLast) {
            if (!volume)
                return usage(out, "--composite sort-last needs a 3D simulation that splits into "
                                  "slabs (" +
                                      simulationNamesWhere([](const sim::SimDefinition& d) {
                                          return d.dimensions == 3 && d.splittable;
                                      }) +
                                      "); " + def.name + " is not one");
            if (why) return usage(out, std::string("--composite sort-last needs ") + why);
        } else if (!volume || why || o.gpus < 2 ||
                   uint64_t(o.grid.width) * o.grid.height * o.grid.depth < kSortLastCells) {
            o.composite = Composite::Gather;
        }
    }
    o.colorbar = colorbar == "on" || (colorbar == "auto" && !o.headless && !o.bench);
    o.axes = axes == "on" || (axes == "auto" && !o.bench);
    if (o.bench) {
        o.headless = true;
        if (framesInFlight->count() == 0) o.framesInFlight = kBenchFramesInFlight;
        if (frames->count() == 0) o.frames = 5000;
    }
    if (o.handoffBatch > o.framesInFlight)
        return usage(out, "--handoff-batch " + std::to_string(o.handoffBatch) +
                              " is more than the frames in flight (" +
                              std::to_string(o.framesInFlight) +
                              "): each frame of a batch needs a slot of its own");
    return out;
}

uint32_t colormapIndex(std::string_view name) {
    return findColormap(name).value_or(0);
}

} // namespace estuary
