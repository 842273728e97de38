#include "headless.h"
#include "app_viewer.h"
#include "errors.h"
#include "frame_pacer.h"
#include "gpu_wait.h"
#include "png.h"
#include "serving.h"
#include "simulations.h"
#include "stop_signal.h"
#include "trace.h"
#include "watchdog.h"
#include "windowed.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace estuary {
namespace {

// Frame times kept for the summary: the first few, and the most recent ones for the percentiles,
// so memory stays bounded whatever --frames is.
constexpr size_t kFirstFrames = 8;
constexpr size_t kRecentFrames = size_t(1) << 16;

struct FrameTimes {
    std::vector<double> first;
    std::vector<double> recent; // a ring once full
    uint64_t count = 0;
    double slowestMs = 0;

    void add(double ms) {
        if (first.size() < kFirstFrames) first.push_back(ms);
        if (recent.size() < kRecentFrames)
            recent.push_back(ms);
        else
            recent[count % kRecentFrames] = ms;
        slowestMs = std::max(slowestMs, ms);
        ++count;
    }
};

void printFrameTimes(FrameTimes times, double wallSeconds) {
    if (times.count == 0) return;
    std::printf("estuary: %llu frames in %.3f s (%.1f frames/s)\n  first frames (ms):",
                static_cast<unsigned long long>(times.count), wallSeconds,
                double(times.count) / wallSeconds);
    for (double ms : times.first)
        std::printf(" %.3f", ms);
    std::vector<double>& ms = times.recent;
    std::sort(ms.begin(), ms.end());
    const std::string over =
        times.count > ms.size() ? ", last " + std::to_string(ms.size()) + " frames" : "";
    std::printf("\n  frame time (ms%s): p50 %.3f  p99 %.3f  max %.3f\n", over.c_str(),
                ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 99 / 100)], ms.back());
}

// The host's busy time per frame (estuary_frame_stats::host_busy_us: begin to submit, the
// frames-in-flight wait left out; a recording's hand-off and its waits for the encoder in it).
void printHostBusy(FrameTimes busy) {
    if (busy.count == 0) return;
    std::vector<double>& ms = busy.recent;
    std::sort(ms.begin(), ms.end());
    std::printf("  host busy per frame (ms): p50 %.3f  p99 %.3f  max %.3f\n", ms[ms.size() / 2],
                ms[std::min(ms.size() - 1, ms.size() * 99 / 100)], ms.back());
}

// Returns how many of the drained frames were replayed from CUDA graphs.
uint64_t drainStats(const Viewer& viewer, const SimRun& run, FrameTrace* trace, FrameTimes& busy) {
    estuary_frame_stats stats{};
    uint64_t fromGraphs = 0;
    while (viewer.nextFrameStats(stats)) {
        fromGraphs += stats.from_graph != 0;
        busy.add(stats.host_busy_us / 1000.0);
        if (trace) trace->add(stats, run.hostTimes(stats.frame));
    }
    if (trace) trace->addGpuSpans(run.takeGpuSpans());
    return fromGraphs;
}

// `steered`: a served run, steered from the page as the window is (its panel, brush and keys);
// else the options' simulation runs alone.
void run(const Viewer& viewer, const Options& o, RunOutputs& outputs, WindowRun* steered) {
    const sim::SimDefinition& def = *findSimulation(o.simulation);
    const std::unique_ptr<SimRun> alone =
        steered ? nullptr : openSimRun(viewer, o, def, runKindFor(viewer, false));
    const auto sim = [&]() -> SimRun& { return steered ? *steered->run : *alone; };
    const sim::ParamValues params = startParams(o, def);
    const int steps = startSteps(o, def);
    // A served run goes on until stopped (Ctrl-C), unless --frames says otherwise.
    const uint64_t frames = o.frames ? o.frames : steered ? UINT64_MAX : 300;
    std::optional<FrameTrace> trace;
    if (outputs.trace) {
        trace.emplace(frames);
        trace->beginPart("headless", sim().name());
        trace->reserveGpuSpans(frames, sim().traceGpus());
    }
    FrameTimes times, busy;
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    auto previous = start;
    uint64_t drawn = 0, fromGraphs = 0;
    FramePacer pacer(o.fpsCap);
    for (bool last = false; !last;) {
        pacer.wait();
        last = drawn + 1 == frames || stopSignal() != 0;
        {
            const WatchdogScope watch("frame", drawn, frameTimeoutNs(times.slowestMs));
            if (!steered)
                alone->frame(params, steps);
            else if (!stepWindowRun(*steered)) // the panel's or the library's close request
                last = true;
        }
        if (steered) reportServeStats(viewer.get(), o);
        ++drawn;
        fromGraphs += drainStats(viewer, sim(), trace ? &*trace : nullptr, busy);
        const auto now = Clock::now();
        times.add(std::chrono::duration<double, std::milli>(now - previous).count());
        previous = now;
    }
    {
        const WatchdogScope watch("finishing frame", drawn - 1,
                                  2 * frameTimeoutNs(times.slowestMs));
        viewer.finish(); // every frame drawn, its times collected, the clocks aligned again
    }
    fromGraphs += drainStats(viewer, sim(), trace ? &*trace : nullptr, busy);
    printFrameTimes(std::move(times), std::chrono::duration<double>(Clock::now() - start).count());
    printHostBusy(std::move(busy));
    if (viewer.info().has_cuda && o.backend != Backend::Cpu)
        std::printf("estuary: %llu of %llu frames replayed from CUDA graphs\n",
                    static_cast<unsigned long long>(fromGraphs),
                    static_cast<unsigned long long>(drawn));
    if (const int signal = stopSignal())
        std::printf("estuary: stopped by %s after %llu%s frames\n", stopSignalName(signal),
                    static_cast<unsigned long long>(drawn),
                    frames == UINT64_MAX ? "" : (" of " + std::to_string(frames)).c_str());

    const estuary_viewer_info info = viewer.info();
    std::vector<uint8_t> pixels(size_t(info.width) * info.height * 4);
    {
        const WatchdogScope watch("reading back frame", drawn - 1, gpuWaitTimeoutNs());
        check(estuary_read_pixels(viewer.get(), pixels.data(), pixels.size()));
    }
    outputs.screenshot->write(encodePng(info.width, info.height, pixels.data()));
    std::printf("estuary: wrote %s (%ux%u)\n", outputs.screenshot->path().c_str(), info.width,
                info.height);
    if (trace) {
        trace->endPart(viewer.get());
        outputs.trace->write([&](const WriteChunk& put) { trace->write(put); });
        std::printf("estuary: wrote %s (%zu frames%s); clock alignment:\n%s",
                    outputs.trace->path().c_str(), trace->framesKept(),
                    trace->framesDropped() ? ", later ones dropped" : "",
                    trace->alignmentSummary().c_str());
    }
}

} // namespace

int runHeadless(const Options& options, RunOutputs& outputs) {
    Viewer opened = openAppViewer(options, {});
    std::unique_ptr<WindowRun> steered;
    try {
        if (!options.serve.empty()) steered = openWindowRunOn(std::move(opened), options);
        run(steered ? steered->viewer : opened, options, outputs, steered.get());
    } catch (...) {
        // Keep the original error: a second failure while tearing down is only reported.
        try {
            if (steered) steered->run.reset();
            (void)(steered ? steered->viewer : opened).close();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "estuary: also failed while closing: %s\n", e.what());
        }
        throw;
    }
    const uint32_t messages = steered ? closeWindowRun(steered) : closeAppViewer(opened, options);
    return messages > 0 ? int(ExitCode::Runtime) : 0;
}

} // namespace estuary
