#include "ticks.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>

namespace estuary::annotations {
namespace {

// Labels are laid out at most this densely before their text is even measured: bounds the work
// of the fitting loop on long axes.
constexpr float kMinTickSpacing = 12.0f;

std::string describe(double value) {
    char text[64];
    std::snprintf(text, sizeof(text), "%g", value);
    return text;
}

double pow10(int power) {
    return std::pow(10.0, double(power));
}

// The mantissa of a round step: 1, 2 or 5.
int mantissaOf(double step) {
    const double m = step / pow10(int(std::floor(std::log10(step))));
    return m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 1;
}

double nextNiceStep(double step) {
    const double base = pow10(int(std::floor(std::log10(step) + 1e-9)));
    const int m = mantissaOf(step);
    return m == 1 ? 2 * base : m == 2 ? 5 * base : 10 * base;
}

float extentOf(const TickRequest& r, const std::string& label) {
    return r.labelExtent ? r.labelExtent(label) : 8.0f * float(label.size());
}

bool labelsFit(const TickRequest& r, const std::vector<double>& positions,
               const std::vector<std::string>& labels) {
    return tickLabelsFit(r, positions, labels);
}

// A value's place along the axis in pixels from the low end of the range.
struct AxisScale {
    double lo, hi, length;
    bool log;
    double operator()(double v) const {
        if (log)
            return (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) * length;
        return (v - lo) / (hi - lo) * length;
    }
};

// The multiples of `step` in [lo, hi]; with `skipEvery` > 0, not those whose multiple of step
// is a multiple of skipEvery (the major ticks among minor ones).
std::vector<double> multiplesOf(double step, double lo, double hi, int64_t skipEvery = 0) {
    std::vector<double> values;
    const double first = std::ceil(lo / step - 1e-9), last = std::floor(hi / step + 1e-9);
    if (last >= first) values.reserve(size_t(last - first) + 1);
    for (double k = first; k <= last; k += 1.0) {
        if (skipEvery > 0 && int64_t(k) % skipEvery == 0) continue;
        const double v = k * step;
        values.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
    }
    return values;
}

Ticks linearTicks(const TickRequest& r, double lo, double hi, const AxisScale& scale) {
    const double span = hi - lo;
    const double most = std::max(1.0, double(r.lengthPixels) / double(kMinTickSpacing));
    Ticks t;
    std::vector<double> finer;
    double finerStep = 0;
    for (double step = niceStep(span, most);; step = nextNiceStep(step)) {
        // A cheap necessary condition first: the narrowest label (the value nearest 0, formatted
        // as the whole set would be) must fit between two ticks.
        const double first = std::ceil(lo / step - 1e-9), last = std::floor(hi / step + 1e-9);
        if (last > first) {
            const double nearest = lo > 0 ? first * step : hi < 0 ? last * step : 0.0;
            std::vector<double> probe{first * step, last * step};
            if (nearest != probe[0] && nearest != probe[1]) probe.push_back(nearest);
            std::string unused;
            const std::vector<std::string> ends = formatTickLabels(probe, step, unused);
            const size_t at = probe.size() == 3 ? 2 : nearest == probe[0] ? 0 : 1;
            const float narrowest = extentOf(r, ends[at]);
            if (double(r.lengthPixels) * step / span < double(narrowest + r.labelGap)) continue;
        }
        std::vector<double> values = multiplesOf(step, lo, hi);
        if (values.empty()) {
            // No multiple of this step inside: keep one round number of a finer step, the middle.
            for (finerStep = step; finer.empty();)
                finer = multiplesOf(finerStep /= 10, lo, hi);
            values = {finer[finer.size() / 2]};
            step = finerStep;
        }
        std::string exponent;
        std::vector<std::string> labels = formatTickLabels(values, step, exponent);
        std::vector<double> positions;
        for (double v : values)
            positions.push_back(scale(v));
        if (values.size() <= 1 || labelsFit(r, positions, labels)) {
            t.major = std::move(values);
            t.labels = std::move(labels);
            t.exponent = std::move(exponent);
            // Minor ticks: 4 or 5 between majors where they stay 4 pixels apart, else 1, else none.
            const int m = mantissaOf(step);
            const double pixelsPerStep = double(r.lengthPixels) * step / span;
            int divisions = m == 2 ? 4 : 5;
            if (pixelsPerStep / divisions < 4.0) divisions = pixelsPerStep / 2 >= 4.0 ? 2 : 0;
            if (divisions > 0 && !r.log && r.minor)
                t.minor = multiplesOf(step / divisions, lo, hi, divisions);
            return t;
        }
        finer = std::move(values);
        finerStep = step;
    }
}

Ticks logTicks(const TickRequest& r, double lo, double hi, const AxisScale& scale) {
    const int d0 = int(std::ceil(std::log10(lo) - 1e-9)),
              d1 = int(std::floor(std::log10(hi) + 1e-9));
    const bool plain = d0 >= -3 && d1 <= 4;
    const auto label = [&](int d) {
        return plain ? formatFixed(pow10(d), std::max(0, -d)) : powerOfTen(d);
    };
    Ticks t;
    for (int every = 1;; ++every) {
        std::vector<double> values, positions;
        std::vector<std::string> labels;
        // Decades that are multiples of `every`, so zooming keeps the same ones labelled.
        for (int d = d0; d <= d1; ++d) {
            if (((d % every) + every) % every != 0) continue;
            values.push_back(pow10(d));
            positions.push_back(scale(values.back()));
            labels.push_back(label(d));
        }
        if (values.size() <= 1 || labelsFit(r, positions, labels)) {
            t.major = std::move(values);
            t.labels = std::move(labels);
            const double decadePixels = double(r.lengthPixels) / (std::log10(hi) - std::log10(lo));
            for (int d = d0 - 1; d <= d1; ++d) {
                if (every == 1 && decadePixels * std::log10(2.0 / 1.0) >= 4.0) {
                    for (int m = 2; m <= 9; ++m) {
                        const double v = m * pow10(d);
                        if (v >= lo && v <= hi) t.minor.push_back(v);
                    }
                } else if (every > 1 && d >= d0 && ((d % every) + every) % every != 0) {
                    t.minor.push_back(pow10(d));
                }
            }
            return t;
        }
    }
}

} // namespace

bool tickLabelsFit(const TickRequest& r, const std::vector<double>& positions,
                   const std::vector<std::string>& labels) {
    for (size_t i = 1; i < labels.size(); ++i) {
        const double need =
            0.5 * double(extentOf(r, labels[i - 1]) + extentOf(r, labels[i])) + double(r.labelGap);
        if (std::abs(positions[i] - positions[i - 1]) < need) return false;
    }
    return true;
}

double niceStep(double span, double count) {
    const double raw = span / std::max(count, 1.0);
    const int power = int(std::floor(std::log10(raw)));
    const double base = pow10(power);
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * base >= raw * (1.0 - 1e-9)) return m * base;
    return 10.0 * base;
}

std::string formatFixed(double value, int decimals) {
    // to_chars: the same digits as printf's "%.*f", several times faster (labels are per frame).
    char text[400];
    const auto end = std::to_chars(text, text + sizeof(text), value, std::chars_format::fixed,
                                   std::clamp(decimals, 0, 17));
    std::string s(text, end.ec == std::errc() ? end.ptr : text);
    if (s.empty() || s[0] != '-') return s;
    if (s.find_first_not_of("-0.") == std::string::npos) return s.substr(1); // "-0.00" is "0.00"
    return "\u2212" + s.substr(1);
}

std::string powerOfTen(int power) {
    static const char* const kDigits[] = {"\u2070", "\u00b9", "\u00b2", "\u00b3", "\u2074",
                                          "\u2075", "\u2076", "\u2077", "\u2078", "\u2079"};
    std::string s = "10";
    if (power < 0) s += "\u207b";
    const std::string digits = std::to_string(std::abs(power));
    for (char c : digits)
        s += kDigits[c - '0'];
    return s;
}

std::vector<std::string> formatTickLabels(const std::vector<double>& values, double step,
                                          std::string& exponent) {
    exponent.clear();
    double largest = 0;
    for (double v : values)
        largest = std::max(largest, std::abs(v));
    int power = 0;
    if (largest >= 1e5 || (largest > 0 && largest < 1e-3)) {
        power = int(std::floor(std::log10(largest)));
        exponent = "\u00d7" + powerOfTen(power);
    }
    const double scale = pow10(-power);
    const double scaledStep = step * scale;
    int decimals =
        scaledStep > 0 ? std::max(0, -int(std::floor(std::log10(scaledStep) + 1e-9))) : 0;
    std::vector<std::string> labels;
    for (;; ++decimals) {
        labels.clear();
        for (double v : values)
            labels.push_back(formatFixed(v * scale, decimals));
        bool distinct = true;
        for (size_t i = 1; i < labels.size(); ++i)
            distinct = distinct && labels[i] != labels[i - 1];
        if (distinct || decimals >= 17) return labels;
    }
}

Ticks computeTicks(const TickRequest& r) {
    if (!std::isfinite(r.first) || !std::isfinite(r.last))
        throw std::invalid_argument("axis range [" + describe(r.first) + ", " + describe(r.last) +
                                    "] is not finite: both ends must be finite numbers");
    if (!std::isfinite(r.lengthPixels) || r.lengthPixels < 0)
        throw std::invalid_argument("axis length " + describe(r.lengthPixels) +
                                    " pixels: must be finite and >= 0");
    const double lo = std::min(r.first, r.last), hi = std::max(r.first, r.last);
    if (!std::isfinite(hi - lo))
        throw std::invalid_argument("axis range [" + describe(r.first) + ", " + describe(r.last) +
                                    "] is wider than a double holds");
    if (r.log && lo <= 0)
        throw std::invalid_argument("log axis range [" + describe(r.first) + ", " +
                                    describe(r.last) + "]: a log axis needs values above 0");
    if (lo == hi) {
        Ticks t;
        t.major = {lo};
        const double step = lo == 0 ? 1.0 : pow10(int(std::floor(std::log10(std::abs(lo)))) - 3);
        t.labels = formatTickLabels(t.major, step, t.exponent);
        return t;
    }
    // Calendar ticks for years 1 to 9999 (beyond them the calendar types overflow).
    constexpr double kYear1 = -62135596800.0, kYear10000 = 253402300800.0;
    if (r.time && !r.log && lo >= kYear1 && hi < kYear10000) return timeTicks(r, lo, hi);
    const AxisScale scale{lo, hi, double(r.lengthPixels), r.log};
    if (r.log && hi / lo >= 10.0 * (1.0 - 1e-9)) return logTicks(r, lo, hi, scale);
    return linearTicks(r, lo, hi, scale);
}

} // namespace estuary::annotations
