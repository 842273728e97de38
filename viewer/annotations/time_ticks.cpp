// Ticks of a time axis (ticks.h, TickRequest::time): values are seconds since 1970-01-01 00:00
// UTC, ticks fall on calendar boundaries (whole seconds, minutes, hours, days, Mondays, months,
// years, or round fractions of a second), and labels say only what changes from tick to tick; the
// rest (the date of a time of day, the year of a day) goes once into `exponent`.
#include "ticks.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace estuary::annotations {
namespace {

using namespace std::chrono;

constexpr double kDay = 86400.0;
constexpr float kMinTickSpacing = 12.0f; // as ticks.cpp's

enum class Unit { Fraction, Second, Minute, Hour, Day, Week, Month, Year };

struct Step {
    Unit unit;
    double count;   // of the unit (Fraction: seconds)
    double seconds; // about how long it is
};

// The steps tried, shortest first (from 1 second on; fractions and long runs of years are made
// as needed).
constexpr std::array<Step, 23> kLadder{{
    {Unit::Second, 1, 1},          {Unit::Second, 2, 2},           {Unit::Second, 5, 5},
    {Unit::Second, 10, 10},        {Unit::Second, 15, 15},         {Unit::Second, 30, 30},
    {Unit::Minute, 1, 60},         {Unit::Minute, 2, 120},         {Unit::Minute, 5, 300},
    {Unit::Minute, 10, 600},       {Unit::Minute, 15, 900},        {Unit::Minute, 30, 1800},
    {Unit::Hour, 1, 3600},         {Unit::Hour, 2, 7200},          {Unit::Hour, 3, 10800},
    {Unit::Hour, 6, 21600},        {Unit::Hour, 12, 43200},        {Unit::Day, 1, kDay},
    {Unit::Day, 2, 2 * kDay},      {Unit::Week, 1, 7 * kDay},      {Unit::Month, 1, 30.44 * kDay},
    {Unit::Month, 3, 91.3 * kDay}, {Unit::Month, 6, 182.6 * kDay},
}};
constexpr double kYear = 365.25 * kDay;

struct Civil {
    int year = 1970;
    unsigned month = 1, day = 1;
    double second = 0; // of the day
};

Civil civilOf(double t) {
    const double dayIndex = std::floor(t / kDay);
    const year_month_day ymd{sys_days{days{int64_t(dayIndex)}}};
    return {int(ymd.year()), unsigned(ymd.month()), unsigned(ymd.day()), t - dayIndex * kDay};
}

double timeOf(int y, unsigned m, unsigned d) {
    const sys_days date{year{y} / month{m} / day{d}};
    return double(date.time_since_epoch().count()) * kDay;
}

const char* monthName(unsigned m) {
    static const char* const kNames[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    return kNames[(m + 11) % 12];
}

std::string printf2(const char* format, auto... values) {
    char text[64];
    std::snprintf(text, sizeof(text), format, values...);
    return text;
}

std::string dateText(const Civil& c) {
    return printf2("%04d-%02u-%02u", c.year, c.month, c.day);
}

std::string clockText(double second, bool withSeconds) {
    const int64_t s = int64_t(std::floor(second + 1e-6));
    if (withSeconds) return printf2("%02d:%02d:%02d", int(s / 3600), int(s / 60 % 60), int(s % 60));
    return printf2("%02d:%02d", int(s / 3600), int(s / 60 % 60));
}

// The tick values of `step` in [lo, hi].
std::vector<double> valuesOf(const Step& step, double lo, double hi) {
    std::vector<double> v;
    if (step.unit == Unit::Month || step.unit == Unit::Year) {
        const Civil first = civilOf(lo);
        const unsigned every = unsigned(step.count);
        int y = first.year;
        unsigned m = step.unit == Unit::Year ? 1 : first.month;
        if (step.unit == Unit::Year) y -= ((y % int(every)) + int(every)) % int(every);
        for (;;) {
            const double t = timeOf(y, m, 1);
            if (t > hi) break;
            const bool on = step.unit == Unit::Year || (m - 1) % every == 0;
            if (on && t >= lo) v.push_back(t);
            if (step.unit == Unit::Year) {
                y += int(every);
            } else if (++m > 12) {
                m = 1, ++y;
            }
        }
        return v;
    }
    // Fixed lengths, from midnight UTC (weeks: from a Monday, 1970-01-05).
    const double length = step.unit == Unit::Fraction ? step.count : step.seconds;
    const double origin = step.unit == Unit::Week ? 4 * kDay : 0.0;
    const double k0 = std::ceil((lo - origin) / length - 1e-9);
    const double k1 = std::floor((hi - origin) / length + 1e-9);
    for (double k = k0; k <= k1; k += 1.0)
        v.push_back(origin + k * length);
    return v;
}

// Labels and the context they leave out.
std::vector<std::string> labelsOf(const Step& step, const std::vector<double>& values,
                                  std::string& context) {
    std::vector<std::string> labels;
    context.clear();
    if (values.empty()) return labels;
    const Civil first = civilOf(values.front()), last = civilOf(values.back());
    int decimals = 0;
    if (step.unit == Unit::Fraction)
        decimals = std::max(1, -int(std::floor(std::log10(step.count) + 1e-9)));
    for (double v : values) {
        const Civil c = civilOf(v);
        const bool midnight = c.second < 1e-6;
        switch (step.unit) {
        case Unit::Year:
            labels.push_back(printf2("%04d", c.year));
            break;
        case Unit::Month:
            labels.push_back(c.month == 1 ? printf2("%04d", c.year) : monthName(c.month));
            break;
        case Unit::Day:
        case Unit::Week:
            labels.push_back(c.day == 1 && c.month == 1
                                 ? printf2("%04d", c.year)
                                 : printf2("%s %u", monthName(c.month), c.day));
            break;
        case Unit::Hour:
        case Unit::Minute:
            labels.push_back(midnight ? printf2("%s %u", monthName(c.month), c.day)
                                      : clockText(c.second, false));
            break;
        case Unit::Second:
            labels.push_back(midnight ? printf2("%s %u", monthName(c.month), c.day)
                                      : clockText(c.second, true));
            break;
        case Unit::Fraction: {
            const double s = std::fmod(c.second, 60.0);
            labels.push_back(printf2("%0*.*f", decimals + 3, decimals, s));
            break;
        }
        }
    }
    switch (step.unit) {
    case Unit::Year:
        break;
    case Unit::Month:
        if (first.year == last.year && first.month != 1) context = printf2("%04d", first.year);
        break;
    case Unit::Day:
    case Unit::Week:
        if (first.year == last.year) context = printf2("%04d", first.year);
        break;
    case Unit::Hour:
    case Unit::Minute:
    case Unit::Second:
        context = dateText(first);
        break;
    case Unit::Fraction:
        context = dateText(first) + " " + clockText(first.second, false);
        break;
    }
    return labels;
}

} // namespace

Ticks timeTicks(const TickRequest& r, double lo, double hi) {
    const double span = hi - lo;
    const double most = std::max(1.0, double(r.lengthPixels) / double(kMinTickSpacing));
    const double least = span / most; // the shortest step worth trying
    std::vector<Step> steps;
    if (least < 1.0) // round fractions of a second: 1, 2 or 5 times a power of ten
        for (double s = std::max(1e-6, niceStep(span, most)); s < 1.0; s = niceStep(s * 1.01, 1.0))
            steps.push_back({Unit::Fraction, s, s});
    for (const Step& s : kLadder)
        if (s.seconds >= least * (1 - 1e-9)) steps.push_back(s);
    for (double years = std::max(1.0, niceStep(least / kYear, 1.0));; years *= 10) {
        for (double m : {1.0, 2.0, 5.0})
            if (years * m * kYear >= least * (1 - 1e-9))
                steps.push_back({Unit::Year, years * m, years * m * kYear});
        if (years * kYear > span) break;
    }
    Ticks t;
    for (const Step& step : steps) {
        std::vector<double> values = valuesOf(step, lo, hi);
        std::string context;
        std::vector<std::string> labels = labelsOf(step, values, context);
        std::vector<double> positions;
        for (double v : values)
            positions.push_back((v - lo) / span * double(r.lengthPixels));
        if (values.size() <= 1 || tickLabelsFit(r, positions, labels)) {
            t.major = std::move(values);
            t.labels = std::move(labels);
            t.exponent = std::move(context);
            return t;
        }
    }
    return t; // no step fits: no ticks
}

} // namespace estuary::annotations
