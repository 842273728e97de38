// --fps-cap: frames started on an even grid of 1/N s. Each wait sleeps to the frame's deadline
// (start + k / N, not "now + 1/N", so rounding never accumulates), spinning the last stretch
// because sleeps overshoot by tens of µs; a loop that fell behind by more than one period starts
// a fresh grid instead of bursting to catch up. No stop signal waits longer than one period.
#pragma once

#include <chrono>
#include <cstdint>

namespace estuary {

class FramePacer {
  public:
    using Clock = std::chrono::steady_clock;
    // cap 0: no pacing (wait returns at once).
    explicit FramePacer(uint32_t cap);
    // Returns when the next frame may start.
    void wait();

  private:
    Clock::duration period_{};
    Clock::time_point next_{};
    bool started_ = false;
};

} // namespace estuary
