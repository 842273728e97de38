// Benchmark statistics against hand-computed values: nearest-rank percentiles, sample stddev, the
// 1% low, hitches relative to the median, and NaN (unmeasured) samples being skipped.
#include "bench_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace estuary {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(BenchStats, OneToTenMatchesHandComputedSummary) {
    const std::vector<double> ms = {7, 3, 10, 1, 9, 2, 8, 4, 6, 5}; // shuffled on purpose
    const Summary s = summarize(ms);
    EXPECT_EQ(s.count, 10u);
    EXPECT_DOUBLE_EQ(s.mean, 5.5);
    EXPECT_NEAR(s.stddev, 3.0276503540974917, 1e-12); // sqrt(82.5 / 9)
    EXPECT_NEAR(s.cov, 3.0276503540974917 / 5.5, 1e-12);
    EXPECT_EQ(s.min, 1);
    EXPECT_EQ(s.p50, 5);
    EXPECT_EQ(s.p90, 9);
    EXPECT_EQ(s.p95, 10);
    EXPECT_EQ(s.p99, 10);
    EXPECT_EQ(s.p999, 10);
    EXPECT_EQ(s.max, 10);
    EXPECT_DOUBLE_EQ(s.low1PercentFps, 100.0); // slowest max(1, 10/100) = 1 frame: 10 ms
    EXPECT_EQ(s.hitches, 0u);                  // nothing above 2 × 5 ms
}

TEST(BenchStats, ThousandFramesOnePercentLowIsMeanOfSlowestTen) {
    std::vector<double> ms(990, 10.0);
    for (int i = 0; i < 10; ++i) // 30..39 ms, spread through the run
        ms.insert(ms.begin() + 97 * i, 30.0 + i);
    const Summary s = summarize(ms);
    EXPECT_EQ(s.count, 1000u);
    EXPECT_NEAR(s.low1PercentFps, 1000.0 / 34.5, 1e-9);
    EXPECT_EQ(s.p50, 10);
    EXPECT_EQ(s.p99, 10);  // rank 990
    EXPECT_EQ(s.p999, 38); // rank 999, not 1000: 99.9 × 1000 / 100 must not round up
    EXPECT_EQ(s.max, 39);
    EXPECT_EQ(s.hitches, 10u); // > 20 ms
}

TEST(BenchStats, HitchesAreFramesStrictlyAboveTwiceTheMedian) {
    const Summary s = summarize(std::vector<double>{1, 1, 1, 1, 2, 2.1, 5});
    EXPECT_EQ(s.p50, 1);      // rank ceil(3.5) = 4
    EXPECT_EQ(s.hitches, 2u); // 2.1 and 5; 2.0 is exactly the threshold
    EXPECT_EQ(hitchThresholdMs(s.p50), 2.0);
}

TEST(BenchStats, MedianOfEvenCountIsNearestRankNotInterpolated) {
    EXPECT_EQ(summarize(std::vector<double>{4, 1, 3, 2}).p50, 2);
}

TEST(BenchStats, NaNSamplesAreSkippedAndNotCounted) {
    const Summary s = summarize(std::vector<double>{kNaN, 2, kNaN, 4});
    EXPECT_EQ(s.count, 2u);
    EXPECT_DOUBLE_EQ(s.mean, 3);
    EXPECT_EQ(s.min, 2);
    EXPECT_EQ(s.max, 4);
    EXPECT_NEAR(s.stddev, std::sqrt(2.0), 1e-12);
}

TEST(BenchStats, EmptyOrAllNaNInputThrows) {
    EXPECT_THROW(summarize(std::vector<double>{}), std::invalid_argument);
    EXPECT_THROW(summarize(std::vector<double>{kNaN, kNaN}), std::invalid_argument);
}

TEST(BenchStats, SingleSampleHasZeroSpread) {
    const Summary s = summarize(std::vector<double>{16.6});
    EXPECT_EQ(s.stddev, 0);
    EXPECT_EQ(s.cov, 0);
    EXPECT_EQ(s.p50, 16.6);
    EXPECT_EQ(s.p999, 16.6);
    EXPECT_EQ(s.hitches, 0u);
}

TEST(BenchStats, PercentileZeroIsMinAndHundredIsMax) {
    const std::vector<double> sorted = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    EXPECT_EQ(percentileNearestRank(sorted, 0), 1);
    EXPECT_EQ(percentileNearestRank(sorted, 100), 10);
    EXPECT_EQ(percentileNearestRank(sorted, 10), 1);   // rank 1
    EXPECT_EQ(percentileNearestRank(sorted, 10.5), 2); // rank ceil(1.05) = 2
    EXPECT_EQ(percentileNearestRank(sorted, 50), 5);
    EXPECT_EQ(percentileNearestRank(sorted, 90), 9);
    EXPECT_EQ(percentileNearestRank(sorted, 95), 10);
}

TEST(BenchStats, PercentileSortsAnUnsortedCopy) {
    EXPECT_EQ(percentileNearestRank({5, 1, 4, 2, 3}, 40), 2);
}

TEST(BenchStats, PercentileRejectsBadInput) {
    EXPECT_THROW(percentileNearestRank({}, 50), std::invalid_argument);
    EXPECT_THROW(percentileNearestRank({1, 2}, -1), std::invalid_argument);
    EXPECT_THROW(percentileNearestRank({1, 2}, 100.5), std::invalid_argument);
    EXPECT_THROW(percentileNearestRank({1, 2}, kNaN), std::invalid_argument);
    EXPECT_THROW(percentileNearestRank({1, kNaN}, 50), std::invalid_argument);
}

} // namespace
} // namespace estuary
