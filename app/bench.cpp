// The benchmark: for each mode a fresh session (same grid, steps, renderer and output size),
// warm-up frames, then timed frames; per-frame times come from the frame history (host frame
// interval, CUDA events, Vulkan timestamps), taken out of its small ring as each frame's GPU times
// arrive, so memory grows with the measured frames only (at most kMaxBenchFrames per mode; warm-up
// frames are not kept). Each mode's clocks are aligned before its first frame and after its last
// (run_clocks.h), which gives every frame's hand-off latency; with --trace the frames of every
// mode, warm-up included, go into one trace (trace.h). A stop request (stop_signal.h) ends the
// current mode at a frame boundary, skips the rest, and the report of what was measured is written,
// marked "interrupted". Modes:
//   pipelined  — the normal frame loop, frames in flight over a ring of shared images;
//   serialized — one shared image, and the host waits for every frame before starting the next,
//                the CUDA↔Vulkan round trip of the reference samples;
//   host-copy  — no interop: field and mips through pinned host memory and staging buffers.
#include "bench.h"
#include "bench_report.h"
#include "vk_check.h"
#include "frame.h"
#include "gl_field.h"
#include "memory_budget.h"
#include "offscreen.h"
#include "run_clocks.h"
#include "session.h"
#include "simulations.h"
#include "stop_signal.h"
#include "trace.h"

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

std::string versionString(uint32_t v) {
    return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) +
           "." + std::to_string(VK_API_VERSION_PATCH(v));
}

std::string nowIso8601() {
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

BenchEnvironment describeEnvironment(const Session& session) {
    BenchEnvironment env;
    const PhysicalDeviceInfo& physical = session.choice.physical;
    env.gpuName = physical.properties.deviceName;
    env.gpuUuid = formatUuid(physical.uuid.data());
    env.vulkanApiVersion = versionString(physical.properties.apiVersion);
    const uint32_t dv = physical.properties.driverVersion;
    // NVIDIA packs its driver version as 10.8.8.6 bits; others follow the Vulkan convention.
    env.driverVersion = physical.properties.vendorID == 0x10DE
                            ? std::to_string(dv >> 22) + "." + std::to_string((dv >> 14) & 0xFF) +
                                  "." + std::to_string((dv >> 6) & 0xFF)
                            : versionString(dv);
    env.vulkanDriver = deviceTypeName(physical.properties.deviceType);
    env.backend = backendName(session.choice.kind);
    env.gitRevision = ESTUARY_GIT_REVISION;
    env.buildType = ESTUARY_BUILD_TYPE;
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    env.hostName = host;
    env.date = nowIso8601();
#ifdef ESTUARY_HAVE_CUDA
    if (session.choice.kind == Backend::Cuda) {
        int runtime = 0, driver = 0, sms = 0, clockKHz = 0, busBits = 0;
        const int dev = session.choice.cudaDevice;
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

FrameSample sampleOf(const FrameTiming& t) {
    FrameSample sample;
    sample.frameMs = std::isnan(t.gpuIntervalMs) ? t.cpuMs : t.gpuIntervalMs;
    sample.cpuFrameMs = t.cpuMs;
    sample.simMs = t.simMs;
    sample.renderMs = t.renderMs;
    sample.waitMs = t.waitMs;
    sample.gpuBusyMs = t.simMs + t.renderMs;
    sample.hostBusyUs = t.hostBusyUs;
    return sample;
}

// The raw ends of a measured frame's hand-off, turned into a latency once the mode's clocks are
// aligned at its end.
struct HandoffMarks {
    double simEndUs = kNotMeasured;
    uint64_t drawStartTicks = 0;
};

// The frames of one mode: warm-up, then timed frames until done or asked to stop.
void runFrames(Session& s, const Options& o, BenchMode mode, ModeResult& result,
               FrameTrace* trace) {
    const uint64_t total = uint64_t(o.warmup) + o.frames;
    const VkExtent2D extent{o.resolution.width, o.resolution.height};
    FrameTarget target;
    target.extent = extent;
    if (s.gl) {
        target.glFramebuffer =
            keepUntilClose(
                s, createGlTarget(extent), +[](const Device&, GlTarget& t) { destroyGlTarget(t); })
                .framebuffer;
    } else {
        OffscreenTarget& offscreen =
            keepUntilClose(s, createOffscreenTarget(s.device, extent), destroyOffscreenTarget);
        target.view = offscreen.image.view;
        target.image = offscreen.image.handle;
        target.begin = [&offscreen](VkCommandBuffer cmd) { recordBeginTarget(cmd, offscreen); };
        target.end = [&offscreen](VkCommandBuffer cmd) { recordEndTarget(cmd, offscreen, false); };
        // The same target and commands every frame: each ring entry's command buffer is recorded
        // once per slot and view, then submitted again (frame.cpp).
        target.repeatKey = 0;
    }

    result.frames.reserve(o.frames);
    std::vector<HandoffMarks> handoffs;
    handoffs.reserve(o.frames);
    // The OpenGL consumer's frames carry no Vulkan timestamps to align.
    SessionClocks clocks;
    if (!s.gl) calibrateClocks(s, clocks);
    if (trace) trace->beginPart(result.mode, s.backend->name());
    // A frame's times are complete once the session collected its GPU times (its slot came round
    // again); the history ring still holds it then, since it keeps far more frames than in flight.
    uint64_t taken = 0;
    const auto take = [&](uint64_t upTo) {
        for (; taken < upTo; ++taken) {
            const FrameTiming* t = s.history.find(taken);
            if (!t)
                throw runtimeError("benchmark: the times of frame " + std::to_string(taken) +
                                   " left the frame history before they were read");
            if (trace) trace->add(*t);
            if (taken < o.warmup) continue;
            result.frames.push_back(sampleOf(*t));
            result.framesFromGraphs += t->fromGraph ? 1 : 0;
            handoffs.push_back({t->marks.simEndUs, t->marks.drawStartTicks});
        }
    };
    auto timedStart = std::chrono::steady_clock::now();
    uint64_t frame = 0;
    for (; frame < total && stopSignal() == 0; ++frame) {
        if (frame == o.warmup) timedStart = std::chrono::steady_clock::now();
        drawFrame(s, frame, target);
        if (mode == BenchMode::Serialized)
            waitFrameDrawn(s, frame); // the per-frame host round trip being measured
        take(s.collectedFrames);
        if ((frame + 1) % 250 == 0 || frame + 1 == total)
            printProgress(result.mode.c_str(), frame + 1, total);
    }
    finishFrames(s);
    take(frame);
    if (!s.gl) {
        calibrateClocks(s, clocks);
        fitClocks(clocks);
    }
    for (size_t i = 0; i < handoffs.size(); ++i)
        result.frames[i].handoffMs =
            handoffLatencyMs(clocks, handoffs[i].simEndUs, handoffs[i].drawStartTicks);
    result.handoffErrorUs = handoffErrorUs(clocks);
    if (trace) trace->endPart(clocks);
    if (frame > o.warmup)
        result.wallSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - timedStart).count();
    if (frame < total) {
        std::fprintf(stderr, "\n");
        result.note = std::string("interrupted by ") + stopSignalName(stopSignal()) + " after " +
                      std::to_string(result.frames.size()) + " of " + std::to_string(o.frames) +
                      " measured frames";
    }
}

ModeResult runMode(const Options& options, BenchMode mode, BenchReport& report, FrameTrace* trace) {
    Options o = options;
    if (mode == BenchMode::Serialized) o.framesInFlight = 1;
    Session session;
    session.hostCopy = mode == BenchMode::HostCopy;
    ModeResult result;
    result.mode = benchModeName(mode);
    openInstance(session, o, {});
    const int code = runSession(session, [&](Session& s) {
        openDevice(s, VK_NULL_HANDLE, VK_FORMAT_R8G8B8A8_UNORM);
        if (mode == BenchMode::HostCopy && s.choice.kind != Backend::Cuda)
            result.note = "CPU backend: its field always reaches Vulkan through host memory, so "
                          "host-copy runs the same path as pipelined";
        if (report.env.gpuName.empty()) {
            report.env = describeEnvironment(s);
            // --draw auto resolves by the device (drawPathFor); the report names the path taken.
            if (options.consumer == Consumer::Vulkan)
                report.config.draw = drawPathName(drawPathFor(
                    options.draw, s.device.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU));
        }
        result.handoff = s.gl ? glHandoffName(s.glHandoff)
                         : s.choice.kind == Backend::Cuda && !s.hostCopy ? "timeline"
                                                                         : "staging";
        runFrames(s, o, mode, result, trace);
        result.bytesPerCellStep = s.simulation->bytesPerCellStep;
        result.bytesPerParticleStep = s.simulation->bytesPerParticleStep;
        result.particles = s.particles;
        const sim::PointsVisual& points = s.simulation->points;
        result.particlesPerFrame = sim::activeParticles(
            s.particles, points.shareParam >= 0 ? s.params[size_t(points.shareParam)] : 1.0f);
        const sim::OutputLayout layout =
            s.simulation->outputs({o.grid.width, o.grid.height, o.grid.depth, s.particles});
        for (const sim::ImageOutput& image : layout.images)
            result.outputBytesPerFrame += double(imageBytes(image));
        for (const sim::BufferOutput& buffer : layout.buffers)
            result.outputBytesPerFrame += double(buffer.bytes);
        // CUDA with interop: nothing; host-copy: download and upload; the CPU backend: upload.
        if (s.choice.kind != Backend::Cuda)
            result.hostBytesPerFrame = result.outputBytesPerFrame;
        else if (s.hostCopy)
            result.hostBytesPerFrame = 2.0 * result.outputBytesPerFrame;
    });
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
    report.config.stepsPerFrame =
        uint32_t(options.stepsPerFrame >= 0 ? options.stepsPerFrame : def.stepsPerFrame);
    report.config.framesInFlight = options.framesInFlight;
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
