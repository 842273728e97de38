// `--trace PATH.json`: a run's frames as a Chrome/Perfetto trace (Trace Event Format JSON; open it
// in ui.perfetto.dev or chrome://tracing; scripts/plot_trace.py draws it as a PNG). Everything is
// on one axis, the host's steady_clock (CLOCK_MONOTONIC) in µs since the run started, the GPU's
// clocks put on it by run_clocks.h, so the time-slicing between CUDA and Vulkan shows. Per session
// part (a headless run, or one benchmark mode) two processes:
//   "GPU"  — thread "CUDA stream": the frame's steps, its wait for Vulkan's release of the slot,
//   its
//            output write (level 0, mips, buffers); thread "Vulkan queue": the draw submission from
//            its first timestamp to its last; a flow arrow from each frame's write to its draw;
//   "host" — thread "frame loop": the frame (drawFrame), the frames-in-flight wait, the
//            simulation's enqueue, recording, vkQueueSubmit2; for backends that simulate on the
//            host (cpu, host-copy) thread "simulation": their steps and output write.
// Complete ("X") events with args {frame}; "M" events name the tracks. "otherData" holds the
// clock alignment per part (method, error bound, drift) and the frames kept and dropped.
// Memory for the frames is reserved up front: add() never allocates, and frames beyond the
// capacity are counted, not kept. The JSON is built once, at write().
#pragma once

#include "frame_timing.h"
#include "output_file.h"
#include "run_clocks.h"

#include <cstdint>
#include <string>
#include <vector>

namespace estuary {

// At most this many frames are kept in a trace (about 130 bytes each in memory, 1 KB of JSON).
inline constexpr size_t kMaxTraceFrames = 200'000;

class FrameTrace {
  public:
    // Room for `frames` frames (at most kMaxTraceFrames) over all parts. The run's time origin
    // is now.
    explicit FrameTrace(size_t frames);

    // A part's frames follow (a headless run, a benchmark mode): named, with its backend.
    void beginPart(const std::string& name, const std::string& backend);
    // A frame whose times are complete (collected), in order.
    void add(const FrameTiming& timing);
    // The part's clocks, calibrated and fitted.
    void endPart(const SessionClocks& clocks);

    size_t framesKept() const { return frames_.size(); }
    size_t framesDropped() const { return dropped_; }
    // One line per part: how each clock was aligned and its error bound.
    std::string alignmentSummary() const;
    // The trace's JSON, in pieces.
    void write(const WriteChunk& put) const;

  private:
    struct Frame {
        uint64_t index = 0;
        double hostBusyUs = kNotMeasured;
        FrameMarks marks;
    };
    struct Part {
        std::string name, backend;
        SessionClocks clocks;
        size_t first = 0, count = 0; // into frames_
    };

    int64_t originNs_ = 0;
    std::vector<Frame> frames_;
    std::vector<Part> parts_;
    size_t dropped_ = 0;
};

} // namespace estuary
