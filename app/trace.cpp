#include "trace.h"
#include "estuary/error.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>

namespace estuary {
namespace {

using nlohmann::json;

// Thread ids within the two processes of a part.
constexpr int kCudaStream = 1, kVulkanQueue = 2;   // process "GPU"
constexpr int kGpuThreads = 10;                    // process "GPU": a split run's GPUs
constexpr uint64_t kMaxGpuSpans = 4'000'000;       // about 160 MB
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

json alignmentJson(bool aligned, const std::string& method, double errorUs, double tightestUs,
                   double driftPpm, uint32_t calibrations, double spanS) {
    if (!aligned) return nullptr;
    return {{"method", method},
            {"error_us", errorUs},
            {"tightest_half_width_us", tightestUs},
            {"drift_ppm", driftPpm},
            {"calibrations", calibrations},
            {"span_s", spanS}};
}

std::string errorText(double errorUs) {
    char text[64];
    std::snprintf(text, sizeof(text), "+-%.2f us", errorUs);
    return text;
}

int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

FrameTrace::FrameTrace(size_t frames) : originNs_(nowNs()) {
    frames_.reserve(std::min(frames, kMaxTraceFrames));
}

void FrameTrace::beginPart(const std::string& name, const std::string& backend) {
    Part part;
    part.name = name;
    part.backend = backend;
    part.hostSimulation = backend != "cuda";
    part.first = frames_.size();
    part.firstSpan = gpuSpans_.size();
    parts_.push_back(part);
}

void FrameTrace::reserveGpuSpans(uint64_t frames, size_t gpus) {
    if (gpus == 0) return;
    gpusTraced_ = std::max(gpusTraced_, gpus);
    // A frame of a split run is at most ~6 spans a GPU at the default halo: steps and exchanges
    // (one or two), a gather or snapshot, a peer copy; 8 leaves room for shallower halos.
    const uint64_t wanted = std::min<uint64_t>(frames * gpus * 8, kMaxGpuSpans);
    if (gpuSpans_.capacity() < gpuSpans_.size() + wanted)
        gpuSpans_.reserve(gpuSpans_.size() + size_t(wanted));
}

void FrameTrace::addGpuSpans(const std::vector<sim::GpuSpan>& spans) {
    for (const sim::GpuSpan& span : spans) {
        if (gpuSpans_.size() == gpuSpans_.capacity() || parts_.empty()) {
            ++spansDropped_;
            continue;
        }
        gpuSpans_.push_back(span);
        ++parts_.back().spanCount;
    }
}

void FrameTrace::add(const estuary_frame_stats& stats, const std::optional<HostSimTimes>& host) {
    if (frames_.size() == frames_.capacity() || parts_.empty()) {
        ++dropped_;
        return;
    }
    frames_.push_back({stats, host});
    ++parts_.back().count;
}

void FrameTrace::endPart(estuary_viewer* viewer) {
    if (parts_.empty()) return;
    Part& part = parts_.back();
    estuary_clock_info info{};
    check(estuary_get_clock_info(viewer, &info));
    const auto keep = [](const estuary_clock_alignment& a) {
        return Alignment{a.aligned != 0, a.method ? a.method : "",
                         a.error_us,     a.tightest_half_width_us,
                         a.drift_ppm,    a.span_s,
                         a.calibrations};
    };
    part.vulkan = keep(info.vulkan);
    part.crossCheck = keep(info.vulkan_cross_check);
    part.cuda = keep(info.cuda);
    part.crossCheckOffsetUs = info.cross_check_offset_us;
    part.handoffErrorUs = info.handoff_error_us;
    for (size_t i = part.first; i < part.first + part.count; ++i)
        check(estuary_align_frame_stats(viewer, &frames_[i].stats, 1));
}

std::string FrameTrace::alignmentSummary() const {
    std::string out;
    for (const Part& part : parts_) {
        out += part.name + ": Vulkan ";
        out += part.vulkan.aligned ? errorText(part.vulkan.errorUs) + " by " + part.vulkan.method
                                   : std::string("not aligned (no timestamps)");
        if (part.crossCheck.aligned) {
            char offset[64];
            std::snprintf(offset, sizeof(offset), ", %+.2f us apart", part.crossCheckOffsetUs);
            out += "; cross-check by bracketed submission " + errorText(part.crossCheck.errorUs) +
                   offset;
        }
        if (part.hostSimulation)
            out += "; simulation (" + part.backend + ") on the host clock";
        else if (part.cuda.aligned)
            out += "; simulation (" + part.backend + ") " + errorText(part.cuda.errorUs) + " by " +
                   part.cuda.method;
        else
            out += "; simulation (" + part.backend + ") not aligned";
        out += '\n';
    }
    return out;
}

void FrameTrace::write(const WriteChunk& put) const {
    const auto alignment = [](const Alignment& a) {
        return alignmentJson(a.aligned, a.method, a.errorUs, a.tightestUs, a.driftPpm,
                             a.calibrations, a.spanS);
    };
    json parts = json::array();
    for (const Part& part : parts_) {
        json crossCheck = alignment(part.crossCheck);
        if (part.crossCheck.aligned && part.vulkan.aligned)
            crossCheck["offset_from_vulkan_us"] = part.crossCheckOffsetUs;
        parts.push_back(
            {{"name", part.name},
             {"backend", part.backend},
             {"frames", part.count},
             {"alignment",
              {{"vulkan", alignment(part.vulkan)},
               {"vulkan_bracketed_submission", std::move(crossCheck)},
               {"simulation", part.hostSimulation ? json("host clock") : alignment(part.cuda)},
               {"handoff_error_us",
                std::isfinite(part.handoffErrorUs) ? json(part.handoffErrorUs) : json(nullptr)}}}});
    }
    const json other = {
        {"generator", "estuary --trace"},
        {"clock", "host steady_clock (CLOCK_MONOTONIC); ts in microseconds since the run started"},
        {"run_start_monotonic_ns", originNs_},
        {"frames_kept", frames_.size()},
        {"frames_dropped", dropped_},
        {"gpu_spans_kept", gpuSpans_.size()},
        {"gpu_spans_dropped", spansDropped_},
        {"gpu_spans_clock",
         "each GPU's CUDA events from one reference event per GPU, bracketed by the host clock "
         "once when the trace started (error about half a bracket, a few µs, plus drift)"},
        {"parts", std::move(parts)}};

    EventWriter w(put);
    w.raw("{\"displayTimeUnit\": \"ms\",\n\"otherData\": " + other.dump(2) +
          ",\n\"traceEvents\": [");
    const double originUs = double(originNs_) / 1000.0;
    const auto axis = [&](double hostUs) { return hostUs - originUs; };
    for (size_t p = 0; p < parts_.size(); ++p) {
        const Part& part = parts_[p];
        const int gpu = int(2 * p + 1), cpu = int(2 * p + 2);
        const std::string suffix = parts_.size() > 1 ? " (" + part.name + ")" : "";
        const bool deviceSim = !part.hostSimulation;
        const int simPid = deviceSim ? gpu : cpu;
        const int simTid = deviceSim ? kCudaStream : kHostSimulation;
        nameTrack(w, gpu, 0, "GPU" + suffix, int(2 * p));
        nameTrack(w, cpu, 0, "host" + suffix, int(2 * p + 1));
        nameTrack(w, gpu, kVulkanQueue, "Vulkan queue", 2);
        nameTrack(w, cpu, kFrameLoop, "frame loop", 1);
        nameTrack(w, simPid, simTid,
                  deviceSim ? "CUDA stream" : "simulation (" + part.backend + " backend)", 1);
        for (size_t i = part.first; i < part.first + part.count; ++i) {
            const estuary_frame_stats& s = frames_[i].stats;
            const json args = {{"frame", s.frame}};
            json frameArgs = args;
            if (std::isfinite(s.host_busy_us)) frameArgs["host_busy_us"] = s.host_busy_us;
            const double workStart = std::isfinite(s.wait_end_us) ? s.wait_end_us : s.begin_us;
            span(w, cpu, kFrameLoop, "frame", axis(s.begin_us), axis(s.submit_end_us), frameArgs);
            span(w, cpu, kFrameLoop, "frames-in-flight wait", axis(s.wait_start_us),
                 axis(s.wait_end_us), args);
            span(w, cpu, kFrameLoop, deviceSim ? "simulate (CUDA enqueue)" : "simulate",
                 axis(workStart), axis(s.end_us), args);
            span(w, cpu, kFrameLoop, "record", axis(s.end_us), axis(s.record_end_us), args);
            span(w, cpu, kFrameLoop, "vkQueueSubmit2", axis(s.submit_start_us),
                 axis(s.submit_end_us), args);
            double simStart, stepsEnd, writeStart, simEnd;
            if (deviceSim) {
                simStart = axis(s.cuda_start_us);
                stepsEnd = axis(s.cuda_wait_start_us);
                writeStart = axis(s.cuda_wait_end_us);
                simEnd = axis(s.cuda_end_us);
            } else if (const auto& h = frames_[i].host) {
                simStart = axis(h->startUs);
                stepsEnd = writeStart = axis(h->stepsEndUs);
                simEnd = axis(h->endUs);
            } else {
                simStart = stepsEnd = writeStart = simEnd = NAN;
            }
            span(w, simPid, simTid, "steps", simStart, stepsEnd, args);
            if (writeStart > stepsEnd)
                span(w, simPid, simTid, "wait for Vulkan's release", stepsEnd, writeStart, args);
            span(w, simPid, simTid, "write outputs", writeStart, simEnd, args);
            const double drawStart = axis(s.draw_start_us), drawEnd = axis(s.draw_end_us);
            json drawArgs = args;
            if (std::isfinite(s.handoff_ms)) drawArgs["handoff_latency_us"] = 1000.0 * s.handoff_ms;
            span(w, gpu, kVulkanQueue, "draw", drawStart, drawEnd, drawArgs);
            if (std::isfinite(simEnd) && std::isfinite(drawStart)) {
                // The arrow leaves from inside the write's slice and lands on the draw's.
                const uint64_t id = (uint64_t(p) << 48) | s.frame;
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
        // Threads kGpuThreads + 2g (its slabs' stream) and + 2g + 1 (its copy stream).
        std::vector<bool> named(2 * gpusTraced_, false);
        for (size_t i = part.firstSpan; i < part.firstSpan + part.spanCount; ++i) {
            const sim::GpuSpan& g = gpuSpans_[i];
            const size_t track = 2 * size_t(g.gpu) + (g.copyStream ? 1 : 0);
            const int tid = kGpuThreads + int(track);
            if (track < named.size() && !named[track]) {
                named[track] = true;
                nameTrack(w, gpu, tid,
                          "GPU " + std::to_string(g.gpu) + (g.copyStream ? " copies" : " slabs"),
                          tid);
            }
            span(w, gpu, tid, g.name, axis(g.startUs), axis(g.endUs), {{"frame", g.frame}});
        }
    }
    w.raw("\n]}\n");
    w.flush();
}

} // namespace estuary
