// Per-frame timings, measured without stalling the pipeline: GPU timestamps and CUDA events of a
// slot are read when the slot comes round again (its frame is then known to be finished), so a
// frame's GPU times arrive `framesInFlight` frames late. NaN marks what was not measured.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace estuary {

inline constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

struct FrameTiming {
    uint64_t frame = 0;
    double cpuMs = kNotMeasured;         // host time from one frame's start to the next
    double simMs = kNotMeasured;         // simulation + field/mip write (CUDA events, or host time)
    double renderMs = kNotMeasured;      // draw submission on the GPU (Vulkan timestamps)
    double waitMs = kNotMeasured;        // time one API waited for the other (see SimBackend)
    double gpuIntervalMs = kNotMeasured; // end of the previous frame's draw to the end of this one
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
