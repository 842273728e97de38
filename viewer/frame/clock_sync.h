// Putting a device clock (Vulkan timestamps, CUDA events) on the host's time axis, as pure
// functions; unit-tested in tests/cpu/clock_sync_test.cpp. A sample is a ClockBracket: one device
// clock reading known to have been taken between two host clock reads (a submission that writes a
// timestamp, a CUDA event recorded on an idle stream, or VK_EXT_calibrated_timestamps' pair with
// its maxDeviation). The tightest of several tries is kept per calibration; calibrations at the
// start and the end of a run give a line whose slope absorbs the drift between the two clocks.
// Both axes in microseconds; the host axis is steady_clock (CLOCK_MONOTONIC). Bad input (no
// sample, an inverted or non-finite bracket) throws std::invalid_argument.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>

namespace estuary {

// The host axis: steady_clock, which is CLOCK_MONOTONIC on Linux (libstdc++ and libc++).
inline double hostUs(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::micro>(t.time_since_epoch()).count();
}
inline int64_t hostNs(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}
inline int64_t hostNowNs() {
    return hostNs(std::chrono::steady_clock::now());
}

struct ClockBracket {
    double deviceUs = 0;
    double hostLowUs = 0, hostHighUs = 0; // the device reading was taken in [low, high]

    double hostMidUs() const { return 0.5 * (hostLowUs + hostHighUs); }
    double halfWidthUs() const { return 0.5 * (hostHighUs - hostLowUs); }
};

// The narrowest of the tries (the first of equals).
ClockBracket tightestBracket(std::span<const ClockBracket> tries);

// host = hostAtOriginUs + slope × (device − deviceOriginUs).
struct ClockFit {
    double deviceOriginUs = 0;
    double hostAtOriginUs = 0;
    double slope = 1; // host µs per device µs
    // Bound on the mapping's error between the first and last point: the widest half-width plus
    // the largest distance of a point's midpoint from the line.
    double errorUs = 0;
    size_t points = 0;
};

// One point: slope 1 (no drift can be known). Several: the least-squares line through their
// midpoints (exactly through both for two); points at one device time give slope 1 through their
// mean.
ClockFit fitClock(std::span<const ClockBracket> points);

inline double toHostUs(const ClockFit& fit, double deviceUs) {
    return fit.hostAtOriginUs + fit.slope * (deviceUs - fit.deviceOriginUs);
}

// The device clock's rate against the host's, in parts per million (0: same rate).
inline double driftPpm(const ClockFit& fit) {
    return (fit.slope - 1.0) * 1e6;
}

} // namespace estuary
