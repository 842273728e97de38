#include "frame_pacer.h"

#include <thread>

namespace estuary {
namespace {

// Sleeps end about this late or later; the rest is spun.
constexpr auto kSpin = std::chrono::microseconds(200);

} // namespace

FramePacer::FramePacer(uint32_t cap) {
    if (cap > 0)
        period_ =
            std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / cap));
}

void FramePacer::wait() {
    if (period_ == Clock::duration::zero()) return;
    const Clock::time_point now = Clock::now();
    if (!started_ || now > next_ + period_) { // first frame, or fell behind: a fresh grid
        started_ = true;
        next_ = now + period_;
        return;
    }
    if (next_ - now > kSpin) std::this_thread::sleep_until(next_ - kSpin);
    while (Clock::now() < next_) {
    }
    next_ += period_;
}

} // namespace estuary
