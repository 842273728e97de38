// Ticks and their labels (viewer/annotations/ticks.h): round numbers, labels that never overlap,
// log decades, the formatting rules, and the ranges refused.
#include "ticks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

namespace estuary::annotations {
namespace {

// A label's width at 8 pixels a code point (UTF-8 continuation bytes do not count).
float widthOf(const std::string& s) {
    float n = 0;
    for (char c : s)
        n += (uint8_t(c) & 0xC0) == 0x80 ? 0.0f : 8.0f;
    return n;
}

bool isRound(double step) {
    const double m = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    return std::abs(m - 1) < 1e-6 || std::abs(m - 2) < 1e-6 || std::abs(m - 5) < 1e-6 ||
           std::abs(m - 10) < 1e-6;
}

TEST(AnnotationTicks, MajorTicksSitAtRoundNumbersInsideTheRange) {
    TickRequest r;
    r.first = -0.37;
    r.last = 2.71;
    r.lengthPixels = 600;
    r.labelExtent = widthOf;
    const Ticks t = computeTicks(r);
    ASSERT_GE(t.major.size(), 4u);
    const double step = t.major[1] - t.major[0];
    EXPECT_TRUE(isRound(step)) << step;
    for (size_t i = 0; i < t.major.size(); ++i) {
        EXPECT_GE(t.major[i], r.first);
        EXPECT_LE(t.major[i], r.last);
        EXPECT_NEAR(std::remainder(t.major[i], step), 0.0, 1e-9);
    }
    EXPECT_EQ(t.labels.size(), t.major.size());
    EXPECT_FALSE(t.minor.empty());
    for (double v : t.minor)
        for (double major : t.major)
            EXPECT_GT(std::abs(v - major), 1e-9);
}

TEST(AnnotationTicks, NeighbouringLabelsNeverOverlapOnAnyAxis) {
    std::mt19937 rng(34);
    std::uniform_real_distribution<double> centre(-1e4, 1e4), logSpan(-6, 8);
    std::uniform_real_distribution<float> length(10, 2500);
    for (int i = 0; i < 2000; ++i) {
        TickRequest r;
        const double span = std::pow(10.0, logSpan(rng));
        r.first = centre(rng) * span;
        r.last = r.first + (i % 2 ? span : -span);
        r.lengthPixels = length(rng);
        r.labelExtent = widthOf;
        const Ticks t = computeTicks(r);
        ASSERT_FALSE(t.major.empty());
        const double lo = std::min(r.first, r.last), hi = std::max(r.first, r.last);
        for (size_t k = 1; k < t.major.size(); ++k) {
            const double gap = (t.major[k] - t.major[k - 1]) / (hi - lo) * r.lengthPixels;
            const double need =
                0.5 * (widthOf(t.labels[k]) + widthOf(t.labels[k - 1])) + r.labelGap;
            ASSERT_GE(gap, need - 1e-6)
                << "range [" << r.first << ", " << r.last << "] over " << r.lengthPixels
                << " px: " << t.labels[k - 1] << " | " << t.labels[k];
            ASSERT_NE(t.labels[k], t.labels[k - 1]);
        }
    }
}

TEST(AnnotationTicks, LogAxesTickPowersOfTenWithTwoToNineBetween) {
    TickRequest r;
    r.first = 1e-2;
    r.last = 1e4;
    r.log = true;
    r.lengthPixels = 800;
    r.labelExtent = widthOf;
    const Ticks t = computeTicks(r);
    ASSERT_EQ(t.major.size(), 7u);
    for (size_t i = 0; i < t.major.size(); ++i)
        EXPECT_DOUBLE_EQ(t.major[i], std::pow(10.0, double(i) - 2.0));
    EXPECT_EQ(t.labels.front(), "0.01");
    EXPECT_EQ(t.labels.back(), "10000");
    EXPECT_EQ(t.minor.size(), 6u * 8u); // 2..9 in each of the six decades
    EXPECT_DOUBLE_EQ(t.minor.front(), 0.02);

    r.first = 1e-9;
    r.last = 1e9;
    r.lengthPixels = 300;
    const Ticks wide = computeTicks(r);
    ASSERT_GE(wide.major.size(), 2u);
    for (double v : wide.major)
        EXPECT_NEAR(std::log10(v), std::round(std::log10(v)), 1e-12);
    EXPECT_EQ(wide.labels.front().rfind("10", 0), 0u) << wide.labels.front(); // "10⁻⁹"
}

TEST(AnnotationTicks, LogAxesWithinADecadeFallBackToRoundNumbers) {
    TickRequest r;
    r.first = 2.0;
    r.last = 8.0;
    r.log = true;
    r.lengthPixels = 400;
    r.labelExtent = widthOf;
    const Ticks t = computeTicks(r);
    ASSERT_GE(t.major.size(), 3u);
    for (double v : t.major) {
        EXPECT_GE(v, 2.0);
        EXPECT_LE(v, 8.0);
    }
    EXPECT_TRUE(isRound(t.major[1] - t.major[0]));
}

TEST(AnnotationTicks, LabelsUseATrueMinusAndNeverMinusZero) {
    TickRequest r;
    r.first = -1.0;
    r.last = 1.0;
    r.lengthPixels = 400;
    r.labelExtent = widthOf;
    const Ticks t = computeTicks(r);
    bool sawZero = false;
    for (const std::string& l : t.labels) {
        EXPECT_EQ(l.find('-'), std::string::npos) << l;
        sawZero = sawZero || l == "0.0" || l == "0";
    }
    EXPECT_TRUE(sawZero);
    EXPECT_EQ(t.labels.front(), "\u22121.0");
    EXPECT_EQ(formatFixed(-0.0001, 2), "0.00");
    EXPECT_EQ(formatFixed(-0.0, 0), "0");
    EXPECT_EQ(formatFixed(-2.5, 1), "\u22122.5");
}

TEST(AnnotationTicks, LabelsAreTheShortestThatTellNeighboursApart) {
    std::string exponent;
    EXPECT_EQ(formatTickLabels({0, 0.5, 1.0}, 0.5, exponent),
              (std::vector<std::string>{"0.0", "0.5", "1.0"}));
    EXPECT_EQ(formatTickLabels({10, 20, 30}, 10, exponent),
              (std::vector<std::string>{"10", "20", "30"}));
    EXPECT_EQ(formatTickLabels({0.02, 0.04}, 0.02, exponent),
              (std::vector<std::string>{"0.02", "0.04"}));
    EXPECT_TRUE(exponent.empty());
}

TEST(AnnotationTicks, VeryLargeAndSmallValuesShareAPowerOfTen) {
    std::string exponent;
    EXPECT_EQ(formatTickLabels({0, 1e7, 2e7, 3e7}, 1e7, exponent),
              (std::vector<std::string>{"0", "1", "2", "3"}));
    EXPECT_EQ(exponent, "\u00d710\u2077");
    EXPECT_EQ(formatTickLabels({0, 5e-7, 1e-6}, 5e-7, exponent),
              (std::vector<std::string>{"0.0", "0.5", "1.0"}));
    EXPECT_EQ(exponent, "\u00d710\u207b\u2076");
    EXPECT_EQ(powerOfTen(-12), "10\u207b\u00b9\u00b2");
}

TEST(AnnotationTicks, AReversedRangeTicksLikeItsForwardTwin) {
    TickRequest forward;
    forward.first = 0;
    forward.last = 10;
    forward.lengthPixels = 300;
    TickRequest reversed = forward;
    std::swap(reversed.first, reversed.last);
    EXPECT_EQ(computeTicks(forward).major, computeTicks(reversed).major);
}

TEST(AnnotationTicks, ARangeOfOneValueGetsOneTick) {
    TickRequest r;
    r.first = r.last = 5.0;
    const Ticks t = computeTicks(r);
    ASSERT_EQ(t.major.size(), 1u);
    EXPECT_EQ(t.major[0], 5.0);
    EXPECT_EQ(t.labels[0].substr(0, 1), "5");
}

TEST(AnnotationTicks, NonFiniteRangesAndNonPositiveLogRangesAreRefused) {
    TickRequest r;
    r.first = std::nan("");
    try {
        computeTicks(r);
        FAIL() << "NaN accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("not finite"), std::string::npos) << e.what();
    }
    r.first = 0;
    r.last = INFINITY;
    EXPECT_THROW(computeTicks(r), std::invalid_argument);
    r.first = -1e308;
    r.last = 1e308;
    EXPECT_THROW(computeTicks(r), std::invalid_argument);
    r.first = 0;
    r.last = 10;
    r.log = true;
    try {
        computeTicks(r);
        FAIL() << "log range from 0 accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("above 0"), std::string::npos) << e.what();
    }
    r.log = false;
    r.lengthPixels = -1;
    EXPECT_THROW(computeTicks(r), std::invalid_argument);
}

} // namespace
} // namespace estuary::annotations
