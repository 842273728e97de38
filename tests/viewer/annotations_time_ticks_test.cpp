// Time axes (ticks.h, TickRequest::time): ticks on calendar boundaries in UTC, labels that say
// only what changes with the rest once in `exponent`, labels that never overlap at any span, and
// ranges beyond the calendar falling back to numbers.
#include "ticks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace estuary::annotations {
namespace {

float widthOf(const std::string& s) {
    return 8.0f * float(s.size());
}

// 2026-03-05 14:20:00 UTC, a Thursday.
constexpr double kThursday = 1772720400.0;
constexpr double kDay = 86400.0;

Ticks timeTicks(double first, double last, float pixels) {
    TickRequest r;
    r.first = first;
    r.last = last;
    r.lengthPixels = pixels;
    r.labelExtent = widthOf;
    r.time = true;
    return computeTicks(r);
}

TEST(AnnotationTimeTicks, HoursOfOneDayReadAsClockTimesWithTheDateOnce) {
    const Ticks t = timeTicks(kThursday, kThursday + 6 * 3600, 800); // 14:20 to 20:20
    ASSERT_GE(t.major.size(), 4u);
    EXPECT_EQ(t.exponent, "2026-03-05");
    for (size_t i = 0; i < t.major.size(); ++i) {
        EXPECT_EQ(std::fmod(t.major[i], 900.0), 0.0) << t.labels[i]; // on a quarter hour at least
        EXPECT_EQ(t.labels[i].size(), 5u) << t.labels[i];            // "HH:MM"
    }
    EXPECT_EQ(t.labels.front().substr(0, 2), "14");
    EXPECT_EQ(t.labels.back().substr(0, 2), "20");
    EXPECT_TRUE(t.minor.empty());
}

TEST(AnnotationTimeTicks, MidnightIsLabelledWithItsDate) {
    const Ticks t = timeTicks(kThursday, kThursday + 30 * 3600, 900); // into Friday
    bool sawDate = false;
    for (size_t i = 0; i < t.major.size(); ++i)
        if (std::fmod(t.major[i], kDay) == 0.0) {
            EXPECT_EQ(t.labels[i], "Mar 6");
            sawDate = true;
        }
    EXPECT_TRUE(sawDate) << "no tick at midnight";
}

TEST(AnnotationTimeTicks, WeeksStartOnMondaysAndMonthsOnTheFirst) {
    const Ticks weeks = timeTicks(kThursday, kThursday + 70 * kDay, 900);
    ASSERT_GE(weeks.major.size(), 2u);
    for (double v : weeks.major) {
        EXPECT_EQ(std::fmod(v, kDay), 0.0);
        EXPECT_EQ(int64_t(std::floor(v / kDay) + 3) % 7, 0) << "not a Monday"; // epoch: Thursday
    }
    EXPECT_EQ(weeks.exponent, "2026");
    const Ticks months = timeTicks(kThursday, kThursday + 400 * kDay, 600); // into 2027
    ASSERT_GE(months.major.size(), 3u);
    bool sawYear = false;
    for (size_t i = 0; i < months.major.size(); ++i) {
        if (months.labels[i] == "2027")
            sawYear = true; // January names its year
        else
            EXPECT_EQ(months.labels[i].size(), 3u) << months.labels[i]; // "Apr"
    }
    EXPECT_TRUE(sawYear);
    EXPECT_EQ(months.exponent, "") << "the year is in the labels";
}

TEST(AnnotationTimeTicks, YearsAndFractionsOfASecond) {
    const Ticks years = timeTicks(0.0, 56 * 365.25 * kDay, 500); // 1970 to 2026
    ASSERT_GE(years.major.size(), 3u);
    for (const std::string& l : years.labels)
        EXPECT_EQ(l.size(), 4u) << l;
    EXPECT_EQ(years.labels.front(), years.major.front() == 0.0 ? "1970" : years.labels.front());
    const Ticks fraction = timeTicks(kThursday + 5.0, kThursday + 5.5, 600);
    ASSERT_GE(fraction.major.size(), 3u);
    EXPECT_EQ(fraction.exponent, "2026-03-05 14:20");
    EXPECT_EQ(fraction.labels.front().substr(0, 3), "05.") << fraction.labels.front();
}

TEST(AnnotationTimeTicks, LabelsNeverOverlapAtAnySpanOrLength) {
    std::mt19937 rng(35);
    std::uniform_real_distribution<double> start(-2e9, 4e9), logSpan(-2, 9.5);
    std::uniform_real_distribution<float> length(40, 3000);
    for (int i = 0; i < 1500; ++i) {
        const double a = start(rng), span = std::pow(10.0, logSpan(rng));
        const float pixels = length(rng);
        const Ticks t = timeTicks(a, a + span, pixels);
        ASSERT_EQ(t.labels.size(), t.major.size());
        for (size_t k = 1; k < t.major.size(); ++k) {
            const double gap = (t.major[k] - t.major[k - 1]) / span * pixels;
            ASSERT_GE(gap, 0.5 * (widthOf(t.labels[k]) + widthOf(t.labels[k - 1])) + 8.0 - 1e-6)
                << "from " << a << " for " << span << " s over " << pixels
                << " px: " << t.labels[k - 1] << " | " << t.labels[k];
        }
        for (double v : t.major) {
            ASSERT_GE(v, a - 1e-6);
            ASSERT_LE(v, a + span + 1e-6);
        }
    }
}

TEST(AnnotationTimeTicks, BeyondTheCalendarTheAxisTicksNumbers) {
    const Ticks t = timeTicks(1e12, 2e12, 600); // about year 33,000
    ASSERT_FALSE(t.major.empty());
    EXPECT_EQ(t.exponent, "\u00d710\u00b9\u00b2");
}

} // namespace
} // namespace estuary::annotations
