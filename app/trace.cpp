#include "trace.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace estuary {
namespace {

using nlohmann::json;

// Thread ids within the two processes of a part.
constexpr int kCudaStream = 1, kVulkanQueue = 2;   // process "GPU"
constexpr int kFrameLoop = 1, kHostSimulation = 2; // process "host"

// The trace's resolution is a nanosecond: rounding keeps the JSON's numbers short.
double roundedUs(double us) {
    return std::round(us * 1000.0) / 1000.0;
}

// Events as JSON lines, handed on in pieces of about 64 KiB.
class EventWriter {
  public:
    explicit EventWriter(const WriteChunk& put) : put_(put) {}
    void add(const json& event) {
        out_ += first_ ? "\n" : ",\n";
        first_ = false;
        out_ += event.dump();
        if (out_.size() >= kPiece) flush();
    }
    void raw(const std::string& text) {
        out_ += text;
        if (out_.size() >= kPiece) flush();
    }
    void flush() {
        if (!out_.empty()) put_(out_);
        out_.clear();
    }

  private:
    static constexpr size_t kPiece = 64 * 1024;
    const WriteChunk& put_;
    std::string out_;
    bool first_ = true;
};

void nameTrack(EventWriter& w, int pid, int tid, const std::string& name, int sortIndex) {
    const bool process = tid == 0;
    w.add({{"ph", "M"},
           {"pid", pid},
           {"tid", tid},
           {"name", process ? "process_name" : "thread_name"},
           {"args", {{"name", name}}}});
    w.add({{"ph", "M"},
           {"pid", pid},
           {"tid", tid},
           {"name", process ? "process_sort_index" : "thread_sort_index"},
           {"args", {{"sort_index", sortIndex}}}});
}

// A complete event from `start` to `end` (µs on the trace's axis); nothing where either is
// unknown. An end a little before the start (within the alignment error) is drawn as an instant.
void span(EventWriter& w, int pid, int tid, const char* name, double start, double end, json args) {
    if (!std::isfinite(start) || !std::isfinite(end)) return;
    w.add({{"ph", "X"},
           {"pid", pid},
           {"tid", tid},
           {"name", name},
           {"ts", roundedUs(start)},
           {"dur", roundedUs(std::max(0.0, end - start))},
           {"args", std::move(args)}});
}

// How a clock was aligned. The drift is only as good as the error bound over the calibrations'
// span allows: a short run cannot measure it.
json alignmentJson(const ClockAlignment& a) {
    if (!a.aligned()) return nullptr;
    double tightest = INFINITY;
    for (const ClockBracket& p : a.points)
        tightest = std::min(tightest, p.halfWidthUs());
    return {{"method", a.method},
            {"error_us", a.fit.errorUs},
            {"tightest_half_width_us", tightest},
            {"drift_ppm", driftPpm(a.fit)},
            {"calibrations", a.fit.points},
            {"span_s", (a.points.back().deviceUs - a.points.front().deviceUs) / 1e6}};
}

// Where the fallback puts the Vulkan clock against the calibrated timestamps (at the first
// calibration): within both error bounds when both are right.
double submissionOffsetUs(const SessionClocks& c) {
    const double device = c.vulkan.fit.deviceOriginUs;
    return toHostUs(c.vulkanSubmission.fit, device) - toHostUs(c.vulkan.fit, device);
}

std::string errorText(const ClockAlignment& a) {
    char text[64];
    std::snprintf(text, sizeof(text), "+-%.2f us", a.fit.errorUs);
    return text;
}

} // namespace

FrameTrace::FrameTrace(size_t frames) : originNs_(hostNowNs()) {
    frames_.reserve(std::min(frames, kMaxTraceFrames));
}

void FrameTrace::beginPart(const std::string& name, const std::string& backend) {
    parts_.push_back({name, backend, {}, frames_.size(), 0});
}

void FrameTrace::add(const FrameTiming& timing) {
    if (frames_.size() == frames_.capacity() || parts_.empty()) {
        ++dropped_;
        return;
    }
    frames_.push_back({timing.frame, timing.hostBusyUs, timing.marks});
    ++parts_.back().count;
}

void FrameTrace::endPart(const SessionClocks& clocks) {
    if (!parts_.empty()) parts_.back().clocks = clocks;
}

std::string FrameTrace::alignmentSummary() const {
    std::string out;
    for (const Part& part : parts_) {
        const SessionClocks& c = part.clocks;
        out += part.name + ": Vulkan ";
        out += c.vulkan.aligned() ? errorText(c.vulkan) + " by " + c.vulkan.method
                                  : std::string("not aligned (no timestamps)");
        if (c.vulkanSubmission.aligned()) {
            char offset[64];
            std::snprintf(offset, sizeof(offset), ", %+.2f us apart", submissionOffsetUs(c));
            out +=
                "; cross-check by bracketed submission " + errorText(c.vulkanSubmission) + offset;
        }
        if (c.simClock == SimBackend::Clock::Host)
            out += "; simulation (" + part.backend + ") on the host clock";
        else if (c.simulation.aligned())
            out += "; simulation (" + part.backend + ") " + errorText(c.simulation) + " by " +
                   c.simulation.method;
        else
            out += "; simulation (" + part.backend + ") not aligned";
        out += '\n';
    }
    return out;
}

void FrameTrace::write(const WriteChunk& put) const {
    json parts = json::array();
    for (const Part& part : parts_) {
        const SessionClocks& c = part.clocks;
        json submission = alignmentJson(c.vulkanSubmission);
        if (c.vulkanSubmission.aligned() && c.vulkan.aligned())
            submission["offset_from_vulkan_us"] = submissionOffsetUs(c);
        parts.push_back(
            {{"name", part.name},
             {"backend", part.backend},
             {"frames", part.count},
             {"alignment",
              {{"vulkan", alignmentJson(c.vulkan)},
               {"vulkan_bracketed_submission", std::move(submission)},
               {"simulation", c.simClock == SimBackend::Clock::Host ? json("host clock")
                                                                    : alignmentJson(c.simulation)},
               {"handoff_error_us", handoffErrorUs(c)}}}});
    }
    const json other = {
        {"generator", "estuary --trace"},
        {"clock", "host steady_clock (CLOCK_MONOTONIC); ts in microseconds since the run started"},
        {"run_start_monotonic_ns", originNs_},
        {"frames_kept", frames_.size()},
        {"frames_dropped", dropped_},
        {"parts", std::move(parts)}};

    EventWriter w(put);
    w.raw("{\"displayTimeUnit\": \"ms\",\n\"otherData\": " + other.dump(2) +
          ",\n\"traceEvents\": [");
    const double originUs = double(originNs_) / 1000.0;
    const auto host = [&](int64_t ns) {
        return ns == 0 ? kNotMeasured : double(ns - originNs_) / 1000.0;
    };
    for (size_t p = 0; p < parts_.size(); ++p) {
        const Part& part = parts_[p];
        const SessionClocks& clocks = part.clocks;
        const int gpu = int(2 * p + 1), cpu = int(2 * p + 2);
        const std::string suffix = parts_.size() > 1 ? " (" + part.name + ")" : "";
        const bool deviceSim = clocks.simClock == SimBackend::Clock::Device;
        const int simPid = deviceSim ? gpu : cpu;
        const int simTid = deviceSim ? kCudaStream : kHostSimulation;
        nameTrack(w, gpu, 0, "GPU" + suffix, int(2 * p));
        nameTrack(w, cpu, 0, "host" + suffix, int(2 * p + 1));
        nameTrack(w, gpu, kVulkanQueue, "Vulkan queue", 2);
        nameTrack(w, cpu, kFrameLoop, "frame loop", 1);
        nameTrack(w, simPid, simTid,
                  deviceSim ? "CUDA stream" : "simulation (" + part.backend + " backend)", 1);
        const auto onAxis = [&](double hostUs) { return hostUs - originUs; };
        for (size_t i = part.first; i < part.first + part.count; ++i) {
            const Frame& f = frames_[i];
            const FrameMarks& m = f.marks;
            const json args = {{"frame", f.index}};
            if (m.frameStart != 0) {
                json frameArgs = args;
                if (std::isfinite(f.hostBusyUs)) frameArgs["host_busy_us"] = f.hostBusyUs;
                span(w, cpu, kFrameLoop, "frame", host(m.frameStart), host(m.submitEnd), frameArgs);
                span(w, cpu, kFrameLoop, "frames-in-flight wait", host(m.waitStart),
                     host(m.waitEnd), args);
                span(w, cpu, kFrameLoop, deviceSim ? "simulate (CUDA enqueue)" : "simulate",
                     host(m.simulateStart), host(m.simulateEnd), args);
                span(w, cpu, kFrameLoop, "record", host(m.simulateEnd), host(m.recordEnd), args);
                span(w, cpu, kFrameLoop, "vkQueueSubmit2", host(m.submitStart), host(m.submitEnd),
                     args);
            }
            const double simStart = onAxis(simulationHostUs(clocks, m.simStartUs));
            const double stepsEnd = onAxis(simulationHostUs(clocks, m.simStepsEndUs));
            const double writeStart = onAxis(simulationHostUs(clocks, m.simWriteStartUs));
            const double simEnd = onAxis(simulationHostUs(clocks, m.simEndUs));
            span(w, simPid, simTid, "steps", simStart, stepsEnd, args);
            if (writeStart > stepsEnd)
                span(w, simPid, simTid, "wait for Vulkan's release", stepsEnd, writeStart, args);
            span(w, simPid, simTid, "write outputs", writeStart, simEnd, args);

            const double drawStart = onAxis(vulkanHostUs(clocks, m.drawStartTicks));
            const double drawEnd = onAxis(vulkanHostUs(clocks, m.drawEndTicks));
            json drawArgs = args;
            const double handoffMs = handoffLatencyMs(clocks, m.simEndUs, m.drawStartTicks);
            if (std::isfinite(handoffMs)) drawArgs["handoff_latency_us"] = 1000.0 * handoffMs;
            span(w, gpu, kVulkanQueue, "draw", drawStart, drawEnd, drawArgs);
            if (std::isfinite(simEnd) && std::isfinite(drawStart)) {
                // The arrow leaves from inside the write's slice and lands on the draw's.
                const uint64_t id = (uint64_t(p) << 48) | f.index;
                w.add({{"ph", "s"},
                       {"id", id},
                       {"pid", simPid},
                       {"tid", simTid},
                       {"ts", roundedUs(std::max(writeStart, simEnd - 0.001))},
                       {"name", "hand-off"},
                       {"cat", "handoff"}});
                w.add({{"ph", "f"},
                       {"bp", "e"},
                       {"id", id},
                       {"pid", gpu},
                       {"tid", kVulkanQueue},
                       {"ts", roundedUs(drawStart)},
                       {"name", "hand-off"},
                       {"cat", "handoff"}});
            }
        }
    }
    w.raw("\n]}\n");
    w.flush();
}

} // namespace estuary
