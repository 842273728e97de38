// Ticks of one axis: where the major and minor ticks fall and what the labels say. Pure (no Vulkan,
// no viewer), called by the layout (annotation_layout.h) for 2D axes, colorbars and 3D box axes.
//
// Major ticks sit at round numbers (1, 2 or 5 times a power of ten), as many as fit: the count is
// lowered until no two neighbouring labels, as `labelExtent` measures them along the axis, come
// closer than `labelGap` pixels. Log axes tick decades (2..9 between them when there is room) and
// fall back to round numbers where the range spans less than a decade. Labels are the shortest text
// that tells neighbours apart, with a true minus sign (U+2212), never "-0", and a common power of
// ten (`exponent`, "×10⁶") when values are very large or very small.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace estuary::annotations {

struct Ticks {
    std::vector<double> major;       // values, inside the range, in increasing order
    std::vector<std::string> labels; // one per major tick
    std::vector<double> minor;       // values, without those of the major ticks
    // Where a common power of ten was taken out of the labels: its text ("×10⁻⁶"); else empty.
    std::string exponent;
};

struct TickRequest {
    // The axis's values at its two ends (either order: a reversed axis is first > last). Log
    // axes: the values themselves (> 0), not their logarithms.
    double first = 0.0, last = 1.0;
    bool log = false;
    float lengthPixels = 100.0f; // the axis's on-screen length
    // A label's extent along the axis in pixels (its width on a horizontal axis, its height on a
    // vertical one); null: 8 pixels a character.
    std::function<float(const std::string&)> labelExtent;
    float labelGap = 8.0f; // the least free space between neighbouring labels
    bool minor = true;     // false: no minor ticks (a colorbar's)
    // A time axis: the values are seconds since 1970-01-01 00:00 UTC; ticks fall on calendar
    // boundaries and the labels' common part (a date, a year) goes into `exponent`
    // (time_ticks.cpp). Linear only; ranges outside years 1..9999 get plain numbers.
    bool time = false;
};

// Throws std::invalid_argument naming the value for a non-finite end, a range wider than a
// double holds, a non-finite or negative length, or a log axis whose range is not positive. A range
// of one value (first == last) gets one tick at it.
Ticks computeTicks(const TickRequest& request);

// A time axis's ticks over [lo, hi] (lo < hi, seconds since the epoch; time_ticks.cpp).
Ticks timeTicks(const TickRequest& request, double lo, double hi);
// Whether labels at `positions` (pixels along the axis) keep the request's gap between neighbours.
bool tickLabelsFit(const TickRequest& request, const std::vector<double>& positions,
                   const std::vector<std::string>& labels);

// The round step (1, 2 or 5 times a power of ten) nearest above span / count; span > 0, count >= 1.
double niceStep(double span, double count);

// The labels of evenly spaced values `step` apart (the shortest fixed-point text that keeps
// neighbours apart), with a common power of ten taken out when they are very large or small.
// `exponent` receives its text or "".
std::vector<std::string> formatTickLabels(const std::vector<double>& values, double step,
                                          std::string& exponent);

// A number as a label: `decimals` digits after the point, U+2212 for minus, no "-0".
std::string formatFixed(double value, int decimals);
// "10" followed by `power` in superscript digits ("10³", "10⁻²").
std::string powerOfTen(int power);

} // namespace estuary::annotations
