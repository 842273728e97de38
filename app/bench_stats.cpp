#include "bench_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace estuary {
namespace {

// Assumes a non-empty ascending vector and p in 0..100 (checked by the public entry points).
double nearestRank(const std::vector<double>& sorted, double p) {
    const double n = double(sorted.size());
    // The tolerance keeps decimal percentiles exact: 99.9 × 1000 / 100 must be rank 999, not 1000
    // from a last-bit rounding error.
    double rank = std::ceil(p * n / 100.0 - 1e-9);
    rank = std::clamp(rank, 1.0, n);
    return sorted[size_t(rank) - 1];
}

} // namespace

double percentileNearestRank(std::vector<double> sorted, double p) {
    if (sorted.empty()) throw std::invalid_argument("percentile of an empty sample");
    if (!(p >= 0.0 && p <= 100.0))
        throw std::invalid_argument("percentile must be within 0..100, got " + std::to_string(p));
    if (std::any_of(sorted.begin(), sorted.end(), [](double v) { return std::isnan(v); }))
        throw std::invalid_argument("percentile of a sample holding NaN");
    if (!std::is_sorted(sorted.begin(), sorted.end())) std::sort(sorted.begin(), sorted.end());
    return nearestRank(sorted, p);
}

Summary summarize(std::span<const double> ms) {
    std::vector<double> sorted;
    sorted.reserve(ms.size());
    for (double v : ms)
        if (std::isfinite(v)) sorted.push_back(v);
    if (sorted.empty()) throw std::invalid_argument("summary of a sample with no finite value");
    std::sort(sorted.begin(), sorted.end());

    Summary s;
    s.count = sorted.size();
    const double n = double(s.count);
    s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / n;
    double squares = 0;
    for (double v : sorted)
        squares += (v - s.mean) * (v - s.mean);
    s.stddev = s.count > 1 ? std::sqrt(squares / (n - 1.0)) : 0.0;
    s.cov = s.mean != 0.0 ? s.stddev / s.mean : 0.0;

    s.min = sorted.front();
    s.max = sorted.back();
    s.p50 = nearestRank(sorted, 50);
    s.p90 = nearestRank(sorted, 90);
    s.p95 = nearestRank(sorted, 95);
    s.p99 = nearestRank(sorted, 99);
    s.p999 = nearestRank(sorted, 99.9);

    const size_t slowest = std::max<size_t>(1, s.count / 100);
    const double slowMean =
        std::accumulate(sorted.end() - std::ptrdiff_t(slowest), sorted.end(), 0.0) /
        double(slowest);
    s.low1PercentFps = 1000.0 / slowMean;

    const double threshold = hitchThresholdMs(s.p50);
    s.hitches = size_t(std::count_if(sorted.begin(), sorted.end(),
                                     [threshold](double v) { return v > threshold; }));
    return s;
}

} // namespace estuary
