// The clock-alignment math (clock_sync.h): the tightest bracket wins, one calibration gives an
// offset with slope 1, two give the line through both midpoints (so a drifting clock maps exactly
// at both ends and within the error bound between them), more are fitted by least squares with
// their residual in the error bound, and bad brackets are refused.
#include "clock_sync.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace estuary {
namespace {

// A device clock running at `rate` host µs per device µs, reading 0 at host time `zero`, sampled
// at device time `device` inside a bracket of half-width `half`, off-centre by `skew` (-1..1).
ClockBracket sample(double device, double zero, double rate, double half, double skew = 0) {
    const double host = zero + rate * device;
    return {device, host - half * (1 + skew), host + half * (1 - skew)};
}

TEST(ClockSync, TightestBracketIsTheNarrowestTry) {
    const std::vector<ClockBracket> tries = {{10, 100, 140}, {20, 110, 114}, {30, 120, 150}};
    const ClockBracket best = tightestBracket(tries);
    EXPECT_EQ(best.deviceUs, 20);
    EXPECT_DOUBLE_EQ(best.halfWidthUs(), 2);
    EXPECT_DOUBLE_EQ(best.hostMidUs(), 112);
}

TEST(ClockSync, OnePointGivesTheOffsetWithSlopeOneAndItsHalfWidthAsError) {
    const std::vector<ClockBracket> points = {{1000, 5000, 5010}};
    const ClockFit fit = fitClock(points);
    EXPECT_DOUBLE_EQ(fit.slope, 1);
    EXPECT_DOUBLE_EQ(toHostUs(fit, 1000), 5005);
    EXPECT_DOUBLE_EQ(toHostUs(fit, 3000), 7005);
    EXPECT_DOUBLE_EQ(fit.errorUs, 5);
    EXPECT_EQ(fit.points, 1u);
}

TEST(ClockSync, TwoPointsAbsorbADriftingClock) {
    // 50 ppm fast device clock, host times about 1e11 µs (a machine up for a day).
    const double zero = 1.2e11, rate = 1.0 + 50e-6;
    const std::vector<ClockBracket> points = {sample(0, zero, rate, 3),
                                              sample(10e6, zero, rate, 3)};
    const ClockFit fit = fitClock(points);
    EXPECT_NEAR(driftPpm(fit), 50, 1e-3);
    EXPECT_NEAR(toHostUs(fit, 0), zero, 1e-4);
    EXPECT_NEAR(toHostUs(fit, 10e6), zero + rate * 10e6, 1e-4);
    EXPECT_NEAR(toHostUs(fit, 4e6), zero + rate * 4e6, 1e-4);
    EXPECT_NEAR(fit.errorUs, 3, 1e-9);
    // An offset alone would be 500 µs off at the end: the drift is what the second point buys.
    const ClockFit offsetOnly = fitClock(std::vector<ClockBracket>{points[0]});
    EXPECT_NEAR(toHostUs(offsetOnly, 10e6) - (zero + rate * 10e6), -500, 1e-3);
}

TEST(ClockSync, BetweenTwoSkewedPointsTheErrorStaysWithinTheBound) {
    // The true reading sits anywhere in its bracket: the line through the midpoints is then off
    // by at most the widest half-width at the points and between them.
    const double zero = 7e10, rate = 1.0 - 20e-6;
    for (double skewA : {-1.0, 0.0, 1.0})
        for (double skewB : {-1.0, 0.5, 1.0}) {
            const std::vector<ClockBracket> points = {sample(0, zero, rate, 8, skewA),
                                                      sample(2e6, zero, rate, 4, skewB)};
            const ClockFit fit = fitClock(points);
            for (double device = 0; device <= 2e6; device += 2.5e5)
                EXPECT_LE(std::abs(toHostUs(fit, device) - (zero + rate * device)),
                          fit.errorUs + 1e-6)
                    << skewA << " " << skewB << " at " << device;
        }
}

TEST(ClockSync, ManyPointsAreFittedByLeastSquaresWithTheResidualInTheError) {
    std::vector<ClockBracket> points;
    for (int i = 0; i < 5; ++i)
        points.push_back(sample(i * 1e6, 1e9, 1.0, 1));
    points[2].hostLowUs += 4; // one midpoint 4 µs late
    points[2].hostHighUs += 4;
    const ClockFit fit = fitClock(points);
    EXPECT_NEAR(fit.slope, 1.0, 1e-9);              // symmetric outlier: no slope change
    EXPECT_NEAR(toHostUs(fit, 0), 1e9 + 0.8, 1e-6); // the line moves up by 4/5
    EXPECT_NEAR(fit.errorUs, 1 + 3.2, 1e-6);        // half-width + the outlier's residual
}

TEST(ClockSync, PointsAtOneDeviceTimeGiveSlopeOneThroughTheirMean) {
    const std::vector<ClockBracket> points = {{500, 100, 110}, {500, 104, 106}};
    const ClockFit fit = fitClock(points);
    EXPECT_DOUBLE_EQ(fit.slope, 1);
    EXPECT_DOUBLE_EQ(toHostUs(fit, 500), 105);
}

TEST(ClockSync, RefusesNoSamplesAndBadBrackets) {
    EXPECT_THROW(tightestBracket({}), std::invalid_argument);
    EXPECT_THROW(fitClock({}), std::invalid_argument);
    const std::vector<ClockBracket> inverted = {{0, 10, 5}};
    EXPECT_THROW(fitClock(inverted), std::invalid_argument);
    EXPECT_THROW(tightestBracket(inverted), std::invalid_argument);
    const std::vector<ClockBracket> notFinite = {{std::numeric_limits<double>::quiet_NaN(), 0, 1}};
    EXPECT_THROW(fitClock(notFinite), std::invalid_argument);
}

} // namespace
} // namespace estuary
