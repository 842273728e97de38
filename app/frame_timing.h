// Per-frame timings, measured without stalling the pipeline: GPU timestamps and CUDA events of a
// slot are read when the slot comes round again (its frame is then known to be finished), so a
// frame's GPU times arrive `framesInFlight` frames late. NaN marks what was not measured. Besides
// the durations, a frame keeps its raw clock marks (FrameMarks) so that a trace (trace.h) and the
// hand-off latency can place it on one time axis once the clocks are aligned (run_clocks.h).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace estuary {

inline constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

// Where a frame happened, on each clock as read. Host marks: steady_clock (CLOCK_MONOTONIC)
// nanoseconds, 0 where not taken (no frames-in-flight wait before the ring is full). The
// simulation's spans are on its backend's clock (SimBackend::simClock), NaN where not measured.
struct FrameMarks {
    int64_t frameStart = 0, waitStart = 0, waitEnd = 0; // the frames-in-flight wait
    int64_t simulateStart = 0, simulateEnd = 0;         // SimBackend::simulate (CUDA: enqueue)
    int64_t recordEnd = 0, submitStart = 0, submitEnd = 0;
    uint64_t drawStartTicks = 0, drawEndTicks = 0; // Vulkan timestamps; 0 = none
    // Simulation: steps [simStart, simStepsEnd], waiting for Vulkan's release of the slot
    // [simStepsEnd, simWriteStart], the output write (level 0, mips, buffers) [simWriteStart,
    // simEnd].
    double simStartUs = kNotMeasured, simStepsEndUs = kNotMeasured;
    double simWriteStartUs = kNotMeasured, simEndUs = kNotMeasured;
};

struct FrameTiming {
    uint64_t frame = 0;
    double cpuMs = kNotMeasured;         // host time from one frame's start to the next
    double simMs = kNotMeasured;         // simulation + field/mip write (CUDA events, or host time)
    double renderMs = kNotMeasured;      // draw submission on the GPU (Vulkan timestamps)
    double waitMs = kNotMeasured;        // time one API waited for the other (see SimBackend)
    double gpuIntervalMs = kNotMeasured; // end of the previous frame's draw to the end of this one
    // Host time drawFrame worked, its frames-in-flight wait left out: collecting GPU times, the
    // simulation's enqueue, recording, submitting.
    double hostBusyUs = kNotMeasured;
    bool fromGraph = false; // SimBackend::SlotTimes::fromGraph
    FrameMarks marks;
};

// Fixed-capacity ring of the most recent frames, oldest first. No allocation after construction.
class FrameHistory {
  public:
    explicit FrameHistory(size_t capacity = 512) : entries_(capacity) {}
    void push(const FrameTiming& timing) {
        entries_[(start_ + size_) % entries_.size()] = timing;
        if (size_ < entries_.size())
            ++size_;
        else
            start_ = (start_ + 1) % entries_.size();
    }
    // The entry of `frame` if it is still held (GPU times arrive late). Frames are pushed in order,
    // one each, so the entry's position follows from the newest frame: no search.
    FrameTiming* find(uint64_t frame) {
        if (size_ == 0) return nullptr;
        const size_t newestIndex = (start_ + size_ - 1) % entries_.size();
        const uint64_t newest = entries_[newestIndex].frame;
        if (frame > newest || newest - frame >= size_) return nullptr;
        FrameTiming& t =
            entries_[(newestIndex + entries_.size() - size_t(newest - frame)) % entries_.size()];
        return t.frame == frame ? &t : nullptr;
    }
    size_t size() const { return size_; }
    const FrameTiming& operator[](size_t i) const {
        return entries_[(start_ + i) % entries_.size()];
    }
    void clear() { start_ = size_ = 0; }

  private:
    std::vector<FrameTiming> entries_;
    size_t start_ = 0;
    size_t size_ = 0;
};

} // namespace estuary
