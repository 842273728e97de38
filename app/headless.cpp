#include "headless.h"
#include "frame.h"
#include "gl_field.h"
#include "offscreen.h"
#include "png.h"
#include "run_clocks.h"
#include "stop_signal.h"
#include "trace.h"
#include "watchdog.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
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

    void add(double ms) {
        if (first.size() < kFirstFrames) first.push_back(ms);
        if (recent.size() < kRecentFrames)
            recent.push_back(ms);
        else
            recent[count % kRecentFrames] = ms;
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

} // namespace

void runHeadless(Session& session, OutputFile& screenshot, OutputFile* traceFile) {
    const Options& o = session.options;
    const uint64_t frames = o.frames ? o.frames : 300;
    const VkExtent2D extent{o.resolution.width, o.resolution.height};
    // Decided before each frame is recorded: only the last one is copied for the screenshot.
    bool last = false;
    FrameTarget target;
    target.extent = extent;
    OffscreenTarget* offscreen = nullptr;
    GlTarget* glTarget = nullptr;
    if (session.gl) {
        glTarget = &keepUntilClose(
            session, createGlTarget(extent),
            +[](const Device&, GlTarget& t) { destroyGlTarget(t); });
        target.glFramebuffer = glTarget->framebuffer;
    } else {
        offscreen = &keepUntilClose(session, createOffscreenTarget(session.device, extent),
                                    destroyOffscreenTarget);
        target.view = offscreen->image.view;
        target.image = offscreen->image.handle;
        target.begin = [&](VkCommandBuffer cmd) { recordBeginTarget(cmd, *offscreen); };
        target.end = [&](VkCommandBuffer cmd) { recordEndTarget(cmd, *offscreen, last); };
    }

    // The trace takes each frame once its GPU times are collected, and its clocks are aligned
    // around the frames.
    std::optional<FrameTrace> trace;
    SessionClocks clocks;
    uint64_t traced = 0;
    const auto traceCollected = [&] {
        for (; traced < session.collectedFrames; ++traced)
            if (const FrameTiming* t = session.history.find(traced)) trace->add(*t);
    };
    if (traceFile) {
        trace.emplace(frames);
        trace->beginPart("headless", session.backend->name());
        calibrateClocks(session, clocks);
    }

    FrameTimes times;
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    auto previous = start;
    uint64_t drawn = 0;
    while (!last) {
        last = drawn + 1 == frames || stopSignal() != 0;
        drawFrame(session, drawn, target);
        ++drawn;
        if (trace) traceCollected();
        const auto now = Clock::now();
        times.add(std::chrono::duration<double, std::milli>(now - previous).count());
        previous = now;
    }
    if (trace) {
        finishFrames(session); // collects the GPU times of the frames still in flight
        traceCollected();
        calibrateClocks(session, clocks);
        fitClocks(clocks);
        trace->endPart(clocks);
    } else {
        waitFrameDrawn(session, drawn - 1);
    }
    printFrameTimes(std::move(times), std::chrono::duration<double>(Clock::now() - start).count());
    if (const int signal = stopSignal())
        std::printf("estuary: stopped by %s after %llu of %llu frames\n", stopSignalName(signal),
                    static_cast<unsigned long long>(drawn),
                    static_cast<unsigned long long>(frames));

    const auto pixels = [&] {
        const WatchdogScope watch("reading back frame", drawn - 1, gpuWaitTimeoutNs());
        return glTarget ? readGlPixels(*glTarget) : readbackPixels(*offscreen);
    }();
    screenshot.write(encodePng(extent.width, extent.height, pixels.data()));
    std::printf("estuary: wrote %s (%ux%u)\n", screenshot.path().c_str(), extent.width,
                extent.height);
    if (trace) {
        traceFile->write([&](const WriteChunk& put) { trace->write(put); });
        std::printf("estuary: wrote %s (%zu frames%s); clock alignment:\n%s",
                    traceFile->path().c_str(), trace->framesKept(),
                    trace->framesDropped() ? ", later ones dropped" : "",
                    trace->alignmentSummary().c_str());
    }
}

} // namespace estuary
