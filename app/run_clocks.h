// One session's clocks on the host's time axis, for the trace (trace.h) and the benchmark's
// hand-off latency. calibrateClocks samples, against steady_clock, the Vulkan queue's timestamp
// clock — with VK_KHR/EXT_calibrated_timestamps where the device offers them (context.h), and
// always by bracketing a tiny submission that writes a timestamp between two host reads, which is
// the fallback and, beside calibrated timestamps, a cross-check — and the simulation's device
// clock (CUDA events: SimBackend::clockBracket). Each calibration keeps the tightest of several
// tries; one before the first frame and one after the last give a line per clock
// (clock_sync.h), whose error bound is what the trace and the report state. Calibrations wait for
// the GPU: call them outside the frame loop, with nothing in flight.
#pragma once

#include "clock_sync.h"
#include "frame_timing.h"
#include "sim_backend.h"

#include <string>
#include <vector>

namespace estuary {

struct Session;

struct ClockAlignment {
    std::string method; // how the points were taken
    std::vector<ClockBracket> points;
    ClockFit fit; // set by fitClocks once there are points

    bool aligned() const { return fit.points > 0; }
};

struct SessionClocks {
    SimBackend::Clock simClock = SimBackend::Clock::Host;
    // Vulkan ticks count from the first sample's, so that device µs stay exact in a double.
    uint64_t vulkanOriginTicks = 0;
    double vulkanUsPerTick = 0; // 0: the queue has no timestamps
    ClockAlignment vulkan;      // calibrated timestamps where offered, else bracketed submissions
    // Bracketed submissions beside calibrated timestamps (empty otherwise): the same clock
    // aligned by the fallback, so both paths are exercised and can be compared.
    ClockAlignment vulkanSubmission;
    ClockAlignment simulation; // device-clock backends only (CUDA events)
};

// Adds one point to each alignment the session's device and backend allow.
void calibrateClocks(Session& session, SessionClocks& clocks);
// Fits each alignment's points (after the last calibration).
void fitClocks(SessionClocks& clocks);

// Host steady_clock µs of a Vulkan timestamp and of a simulation span's time (SlotTimes' clock);
// NaN where that clock is not aligned or nothing was measured.
double vulkanHostUs(const SessionClocks& clocks, uint64_t ticks);
double simulationHostUs(const SessionClocks& clocks, double simUs);

// From the simulation finishing a frame's outputs (its end on a device clock: CUDA's `end` event)
// to the Vulkan queue starting to draw them (the draw's first timestamp), in ms. NaN for
// simulations measured on the host (no GPU-side hand-off) and where either clock is not aligned.
double handoffLatencyMs(const SessionClocks& clocks, double simEndUs, uint64_t drawStartTicks);
// The bound on that latency's alignment error: the two clocks' error bounds added.
double handoffErrorUs(const SessionClocks& clocks);

} // namespace estuary
