// Benchmark statistics: pure summaries of per-frame durations (milliseconds) for the report writers
// in bench_report.h. No GPU, no I/O; unit-tested in tests/cpu/bench_stats_test.cpp.
// Conventions, stated once here and repeated in the report's definitions:
// - percentiles are nearest-rank (rank = ceil(p/100 × n), 1-based; p = 0 gives the minimum), so
//   every percentile is a frame that really happened, never an interpolation;
// - the median is that nearest-rank p50;
// - stddev is the sample standard deviation (divides by n - 1; 0 for a single sample);
// - NaN marks an unmeasured frame and is skipped: `count` is the number of finite samples.
#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <vector>

namespace estuary {

// What a sample holds where nothing was measured.
inline constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

struct Summary {
    size_t count = 0;
    double mean = 0, stddev = 0, cov = 0; // cov = stddev / mean (0 when mean is 0)
    double min = 0, p50 = 0, p90 = 0, p95 = 0, p99 = 0, p999 = 0, max = 0;
    double low1PercentFps = 0; // 1000 / mean of the slowest max(1, floor(n/100)) frames
    size_t hitches = 0;        // frames slower than hitchThresholdMs(p50)
};

// Throws std::invalid_argument when no finite sample remains.
Summary summarize(std::span<const double> ms);

// `sorted` should be ascending; an unsorted copy is sorted first. Throws std::invalid_argument when
// empty, when it holds NaN, or when p is outside 0..100.
double percentileNearestRank(std::vector<double> sorted, double p);

inline double hitchThresholdMs(double medianMs) {
    return 2.0 * medianMs;
}

} // namespace estuary
