// The benchmark: for each mode a fresh viewer (same grid, steps, views and picture size), warm-up
// frames, then timed frames; per-frame times come from the viewer's frame stats (host interval,
// CUDA events, Vulkan timestamps), read as each frame is drawn, so memory grows with the measured
// frames only (at most kMaxBenchFrames per mode; warm-up frames are not kept). Each mode's clocks
// are aligned by the viewer before its first frame and after its last (estuary_finish), which
// gives every frame's hand-off latency; with --trace the frames of every mode, warm-up included,
// go into one trace (trace.h). A stop request (stop_signal.h) ends the current mode at a frame
// boundary, skips the rest, and the report of what was measured is written, marked
// "interrupted". Modes:
//   pipelined  — the normal frame loop, frames in flight over rings of shared images;
//   serialized — one copy of each image, and the host waits for every frame before starting the
//                next, the CUDA↔Vulkan round trip of the reference samples;
//   host-copy  — no interop: outputs and mips through pinned host memory and staging.
#include "bench.h"
#include "frame_pacer.h"
#include "gpu_energy.h"
#include "app_viewer.h"
#include "bench_report.h"
#include "errors.h"
#include "memory_budget.h"
#include "simulations.h"
#include "stop_signal.h"
#include "trace.h"
#include "watchdog.h"

#ifdef ESTUARY_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <optional>
#include <unistd.h>
#include <vector>

namespace estuary {
namespace {

std::string nowIso8601() {
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

BenchEnvironment describeEnvironment(const Viewer& viewer, RunKind kind) {
    BenchEnvironment env;
    const estuary_viewer_info info = viewer.info();
    env.gpuName = info.device_name;
    env.gpuUuid = info.device_uuid;
    env.vulkanApiVersion = info.vulkan_version;
    env.driverVersion = info.driver_version;
    env.vulkanDriver = info.device_type;
    env.backend = runKindName(kind == RunKind::HostCopy ? RunKind::Cuda : kind);
    env.gitRevision = ESTUARY_GIT_REVISION;
    env.buildType = ESTUARY_BUILD_TYPE;
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    env.hostName = host;
    env.date = nowIso8601();
#ifdef ESTUARY_HAVE_CUDA
    if (info.has_cuda) {
        int runtime = 0, driver = 0, sms = 0, clockKHz = 0, busBits = 0;
        const int dev = info.cuda_device;
        if (cudaRuntimeGetVersion(&runtime) == cudaSuccess)
            env.cudaRuntimeVersion =
                std::to_string(runtime / 1000) + "." + std::to_string((runtime % 1000) / 10);
        if (cudaDriverGetVersion(&driver) == cudaSuccess)
            env.cudaDriverVersion =
                std::to_string(driver / 1000) + "." + std::to_string((driver % 1000) / 10);
        (void)cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        (void)cudaDeviceGetAttribute(&clockKHz, cudaDevAttrMemoryClockRate, dev);
        (void)cudaDeviceGetAttribute(&busBits, cudaDevAttrGlobalMemoryBusWidth, dev);
        env.smCount = sms;
        env.memoryClockMHz = clockKHz / 1000.0;
        env.memoryBusWidthBits = busBits;
        env.peakBandwidthGBs = ddrPeakBandwidthGBs(env.memoryClockMHz, busBits);
    }
#endif
    return env;
}

void printProgress(const char* mode, uint64_t done, uint64_t total) {
    std::fprintf(stderr, "\r  %-10s %3d%% (%llu/%llu frames)", mode, int(100 * done / total),
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total));
    if (done == total) std::fprintf(stderr, "\n");
}

// A frame as the report keeps it. The simulation's time is CUDA's where it ran there, else the
// host's measure of the CPU reference's (or the host-copy run's CUDA events).
FrameSample sampleOf(const estuary_frame_stats& s, const std::optional<HostSimTimes>& host) {
    FrameSample sample;
    sample.frameMs = std::isnan(s.gpu_interval_ms) ? s.interval_ms : s.gpu_interval_ms;
    sample.cpuFrameMs = s.interval_ms;
    sample.simMs = std::isfinite(s.cuda_ms) ? s.cuda_ms : host ? host->simMs : kNotMeasured;
    sample.renderMs = s.draw_ms;
    sample.waitMs = s.wait_ms;
    sample.gpuBusyMs = sample.simMs + sample.renderMs;
    sample.hostBusyUs = s.host_busy_us;
    return sample;
}

// The raw readings behind a measured frame's hand-off, aligned again once the mode's last
// calibration is in.
struct HandoffMarks {
    double cudaEndUs = kNotMeasured;
    uint64_t drawStartTicks = 0;
};

// The frames of one mode: warm-up, then timed frames until done or asked to stop.
void runFrames(const Viewer& viewer, SimRun& run, const Options& o, BenchMode mode,
               const sim::ParamValues& params, int steps, ModeResult& result, FrameTrace* trace,
               const GpuEnergy* energy) {
    const uint64_t total = uint64_t(o.warmup) + o.frames;
    result.frames.reserve(o.frames);
    std::vector<HandoffMarks> handoffs;
    handoffs.reserve(o.frames);
    if (trace) {
        trace->beginPart(result.mode, run.name());
        trace->reserveGpuSpans(total, run.traceGpus());
    }
    const auto take = [&] {
        if (trace) trace->addGpuSpans(run.takeGpuSpans());
        estuary_frame_stats s{};
        while (viewer.nextFrameStats(s)) {
            const std::optional<HostSimTimes> host = run.hostTimes(s.frame);
            if (trace) trace->add(s, host);
            if (s.frame < o.warmup) continue;
            result.frames.push_back(sampleOf(s, host));
            result.framesFromGraphs += s.from_graph ? 1 : 0;
            handoffs.push_back({s.raw_cuda_us[3], s.raw_draw_ticks[0]});
        }
    };
    auto timedStart = std::chrono::steady_clock::now();
    double joulesStart = kNotMeasured;
    double slowestMs = 0;
    auto previous = timedStart;
    uint64_t frame = 0;
    FramePacer pacer(o.fpsCap);
    for (; frame < total && stopSignal() == 0; ++frame) {
        pacer.wait();
        if (frame == o.warmup) {
            timedStart = std::chrono::steady_clock::now();
            if (energy) joulesStart = energy->joules();
        }
        {
            const WatchdogScope watch("frame", frame, frameTimeoutNs(slowestMs));
            run.frame(params, steps);
            if (mode == BenchMode::Serialized)
                viewer.waitFrame(frame); // the per-frame host round trip being measured
        }
        const auto now = std::chrono::steady_clock::now();
        slowestMs =
            std::max(slowestMs, std::chrono::duration<double, std::milli>(now - previous).count());
        previous = now;
        take();
        if ((frame + 1) % 250 == 0 || frame + 1 == total)
            printProgress(result.mode.c_str(), frame + 1, total);
    }
    {
        const WatchdogScope watch("finishing frame", frame, 2 * frameTimeoutNs(slowestMs));
        viewer.finish(); // every frame drawn, its times read, the clocks aligned once more
    }
    take();
    for (size_t i = 0; i < handoffs.size(); ++i) {
        estuary_frame_stats s{};
        s.raw_cuda_us[3] = handoffs[i].cudaEndUs;
        s.raw_draw_ticks[0] = handoffs[i].drawStartTicks;
        check(estuary_align_frame_stats(viewer.get(), &s, 1));
        result.frames[i].handoffMs = s.handoff_ms;
    }
    estuary_clock_info clocks{};
    check(estuary_get_clock_info(viewer.get(), &clocks));
    result.handoffErrorUs = clocks.handoff_error_us;
    if (trace) trace->endPart(viewer.get());
    if (frame > o.warmup) {
        result.wallSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - timedStart).count();
        if (energy) {
            // The counter advances in steps (tens of ms apart); a mode shorter than one is not
            // measured rather than reported as 0 W.
            const double joules = energy->joules() - joulesStart;
            if (joules > 0)
                result.energyJoules = joules;
            else
                result.energySource += " did not advance over the " +
                                       std::to_string(result.wallSeconds) +
                                       " s measured: a run shorter than its update interval";
        }
    }
    if (frame < total) {
        std::fprintf(stderr, "\n");
        result.note = std::string("interrupted by ") + stopSignalName(stopSignal()) + " after " +
                      std::to_string(result.frames.size()) + " of " + std::to_string(o.frames) +
                      " measured frames";
    }
}

ModeResult runMode(const Options& options, BenchMode mode, BenchReport& report, FrameTrace* trace) {
    Options o = options;
    if (mode == BenchMode::Serialized) o.framesInFlight = o.handoffBatch = 1;
    ModeResult result;
    result.mode = benchModeName(mode);
    Viewer viewer = openAppViewer(o, {false, mode == BenchMode::HostCopy});
    int code = 0;
    try {
        const RunKind kind = runKindFor(viewer, mode == BenchMode::HostCopy);
        if (mode == BenchMode::HostCopy && kind == RunKind::Cpu)
            result.note = "CPU backend: its field always reaches Vulkan through host memory, so "
                          "host-copy runs the same path as pipelined";
        const sim::SimDefinition& def = *findSimulation(o.simulation);
        const std::unique_ptr<SimRun> run = openSimRun(viewer, o, def, kind);
        if (report.env.gpuName.empty()) {
            report.env = describeEnvironment(viewer, kind);
            // --draw auto resolves by the device; the report names the path taken.
            if (options.consumer == Consumer::Vulkan)
                report.config.draw =
                    viewer.info().draw_path == ESTUARY_DRAW_COMPUTE ? "compute" : "raster";
        }
        const estuary_viewer_info info = viewer.info();
        result.handoff = info.consumer == ESTUARY_CONSUMER_OPENGL
                             ? (info.gl_handoff == ESTUARY_GL_HANDOFF_TIMELINE ? "timeline"
                                : info.gl_handoff == ESTUARY_GL_HANDOFF_BINARY ? "binary"
                                                                               : "host")
                         : kind == RunKind::Cuda ? "timeline"
                                                 : "staging";
        std::string why;
        const std::unique_ptr<GpuEnergy> energy = GpuEnergy::open(info.device_uuid, why);
        result.energySource = energy ? energy->source() : why;
        runFrames(viewer, *run, o, mode, startParams(o, def), startSteps(o, def), result, trace,
                  energy.get());
        result.bytesPerCellStep = def.bytesPerCellStep;
        result.bytesPerParticleStep = def.bytesPerParticleStep;
        result.particles = run->particles();
        const sim::PointsVisual& points = def.points;
        const sim::ParamValues params = startParams(o, def);
        result.particlesPerFrame = sim::activeParticles(
            run->particles(), points.shareParam >= 0 ? params[size_t(points.shareParam)] : 1.0f);
        for (const sim::ImageOutput& image : run->layout().images)
            result.outputBytesPerFrame += double(imageBytes(image));
        for (const sim::BufferOutput& buffer : run->layout().buffers)
            result.outputBytesPerFrame += double(buffer.bytes);
        // CUDA with interop: nothing; host-copy: download and upload; the CPU backend: upload.
        if (kind == RunKind::Cpu)
            result.hostBytesPerFrame = result.outputBytesPerFrame;
        else if (kind == RunKind::HostCopy)
            result.hostBytesPerFrame = 2.0 * result.outputBytesPerFrame;
    } catch (...) {
        try {
            (void)viewer.close();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "estuary: also failed while closing: %s\n", e.what());
        }
        throw;
    }
    code = closeAppViewer(viewer, o) > 0 ? int(ExitCode::Runtime) : 0;
    if (code != 0)
        throw runtimeError(std::string("benchmark mode ") + result.mode +
                           " produced validation messages");
    return result;
}

// Each output is attempted even when the other failed; what failed is reported together after.
void writeOutputs(const BenchReport& report, const FrameTrace* trace, RunOutputs& outputs) {
    std::string failures;
    const auto write = [&](std::optional<OutputFile>& file, const ProduceBytes& produce) {
        if (!file) return;
        try {
            file->write(produce);
            std::printf("estuary bench: wrote %s\n", file->path().c_str());
        } catch (const Error& e) {
            failures += std::string(failures.empty() ? "" : "; ") + e.what();
        }
    };
    write(outputs.report, [&](const WriteChunk& put) { put(toJson(report)); });
    write(outputs.csv, [&](const WriteChunk& put) { writeCsv(report, put); });
    if (trace) {
        std::printf("estuary bench: trace clock alignment:\n%s", trace->alignmentSummary().c_str());
        write(outputs.trace, [&](const WriteChunk& put) { trace->write(put); });
    }
    if (!failures.empty()) throw runtimeError(failures);
}

} // namespace

int runBench(const Options& options, RunOutputs& outputs) {
    BenchReport report;
    const sim::SimDefinition& def = *findSimulation(options.simulation); // checked by the parser
    report.config.simulation = def.name;
    report.config.width = options.grid.width;
    report.config.height = options.grid.height;
    report.config.depth = options.grid.depth;
    report.config.outputWidth = options.resolution.width;
    report.config.outputHeight = options.resolution.height;
    report.config.draw = drawPathName(options.draw);
    report.config.cudaGraphs = options.cudaGraphs;
    report.config.handoffBatch = options.handoffBatch;
    report.config.stepsPerFrame =
        uint32_t(options.stepsPerFrame >= 0 ? options.stepsPerFrame : def.stepsPerFrame);
    report.config.framesInFlight = options.framesInFlight;
    report.config.fpsCap = options.fpsCap;
    report.config.warmup = options.warmup;
    report.config.frames = options.frames;
    report.config.seed = options.seed;
    report.config.consumer = consumerName(options.consumer);

    for (BenchMode mode : options.benchModes)
        report.config.modes +=
            (report.config.modes.empty() ? "" : ",") + std::string(benchModeName(mode));
    std::printf("estuary bench: %s %s, %u steps/frame, %u warm-up + %u frames, %u in flight, "
                "drawn by %s\n",
                def.name.c_str(), gridName(options.grid).c_str(), report.config.stepsPerFrame,
                options.warmup, options.frames, options.framesInFlight,
                consumerName(options.consumer));
    std::fflush(stdout);
    std::optional<FrameTrace> trace;
    if (outputs.trace)
        trace.emplace(size_t(uint64_t(options.warmup) + options.frames) *
                      options.benchModes.size());
    for (BenchMode mode : options.benchModes) {
        if (const int signal = stopSignal()) {
            // Listed with no frames, so the report's modes still match its configuration.
            report.modes.push_back({.mode = benchModeName(mode),
                                    .note = std::string("not run: the benchmark was stopped by ") +
                                            stopSignalName(signal)});
            continue;
        }
        report.modes.push_back(runMode(options, mode, report, trace ? &*trace : nullptr));
        // The default count depends on the backend, which the session chose.
        report.config.particles = std::max(report.config.particles, report.modes.back().particles);
    }
    report.interrupted = stopSignal() != 0;

    std::printf("%s", formatSummaryTable(report).c_str());
    std::fflush(stdout);
    writeOutputs(report, trace ? &*trace : nullptr, outputs);
    return 0;
}

} // namespace estuary
