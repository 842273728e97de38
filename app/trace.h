// `--trace PATH.json`: a run's frames as a Chrome/Perfetto trace (Trace Event Format JSON; open it
// in ui.perfetto.dev or chrome://tracing; scripts/plot_trace.py draws it as a PNG). Everything is
// on one axis, the host's steady_clock (CLOCK_MONOTONIC) in µs since the run started, the GPU's
// clocks put on it by the viewer (estuary_frame_stats), so the time-slicing between CUDA and
// Vulkan shows. Per part (a headless run, or one benchmark mode) two processes:
//   "GPU"  — thread "CUDA stream": the frame's steps, its wait for Vulkan's release of the slot,
//            its output write (level 0, mips, buffers); thread "Vulkan queue": the draw submission
//            from its first timestamp to its last; a flow arrow from each frame's write to its
//            draw;
//            for a run split across GPUs, threads "GPU g slabs" and "GPU g copies": each GPU's
//            steps, halo exchanges, gather or snapshot copies and peer copies (GpuSpan);
//   "host" — thread "frame loop": the frame (begin to submit), the frames-in-flight wait, the
//            simulation's enqueue (or host work), recording, vkQueueSubmit2; for runs that
//            simulate on the host (cpu, host-copy) thread "simulation": their steps and output
//            write.
// Complete ("X") events with args {frame}; "M" events name the tracks. "otherData" holds the
// clock alignment per part (method, error bound, drift) and the frames kept and dropped.
// Memory for the frames is reserved up front: add() never allocates, and frames beyond the
// capacity are counted, not kept. The JSON is built once, at write().
#pragma once

#include "estuary/estuary.h"
#include "output_file.h"
#include "sim_run.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace estuary {

// At most this many frames are kept in a trace (about 250 bytes each in memory, 1 KB of JSON).
inline constexpr size_t kMaxTraceFrames = 200'000;

class FrameTrace {
  public:
    // Room for `frames` frames (at most kMaxTraceFrames) over all parts. The run's time origin
    // is now.
    explicit FrameTrace(size_t frames);

    // A part's frames follow (a headless run, a benchmark mode): named, with its run's kind.
    void beginPart(const std::string& name, const std::string& backend);
    // A drawn frame, in order, with the host's measure of its simulation where it has one.
    void add(const estuary_frame_stats& stats, const std::optional<HostSimTimes>& host);
    // Room for the GPU spans of `frames` frames over `gpus` GPUs (none: 0), before the frames.
    void reserveGpuSpans(uint64_t frames, size_t gpus);
    // Completed GPU spans of the current part; those beyond the room are counted, not kept.
    void addGpuSpans(const std::vector<sim::GpuSpan>& spans);
    // The part's clock alignment, after the viewer's last calibration (estuary_finish): each
    // frame's GPU marks are aligned again with it.
    void endPart(estuary_viewer* viewer);

    size_t framesKept() const { return frames_.size(); }
    size_t framesDropped() const { return dropped_; }
    // One line per part: how each clock was aligned and its error bound.
    std::string alignmentSummary() const;
    // The trace's JSON, in pieces.
    void write(const WriteChunk& put) const;

  private:
    struct Frame {
        estuary_frame_stats stats;
        std::optional<HostSimTimes> host;
    };
    struct Alignment {
        bool aligned = false;
        std::string method;
        double errorUs = 0, tightestUs = 0, driftPpm = 0, spanS = 0;
        uint32_t calibrations = 0;
    };
    struct Part {
        std::string name, backend;
        Alignment vulkan, crossCheck, cuda;
        double crossCheckOffsetUs = 0, handoffErrorUs = 0;
        bool hostSimulation = false;
        size_t first = 0, count = 0;         // into frames_
        size_t firstSpan = 0, spanCount = 0; // into gpuSpans_
    };

    int64_t originNs_ = 0;
    std::vector<Frame> frames_;
    std::vector<sim::GpuSpan> gpuSpans_; // every part's, in order; part.firstSpan indexes them
    size_t gpusTraced_ = 0, spansDropped_ = 0;
    std::vector<Part> parts_;
    size_t dropped_ = 0;
};

} // namespace estuary
