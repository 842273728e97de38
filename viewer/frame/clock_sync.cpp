#include "clock_sync.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace estuary {
namespace {

void check(const ClockBracket& b) {
    if (!std::isfinite(b.deviceUs) || !std::isfinite(b.hostLowUs) || !std::isfinite(b.hostHighUs))
        throw std::invalid_argument("clock bracket with a non-finite time");
    if (b.hostHighUs < b.hostLowUs)
        throw std::invalid_argument("clock bracket whose end is before its start");
}

} // namespace

ClockBracket tightestBracket(std::span<const ClockBracket> tries) {
    if (tries.empty()) throw std::invalid_argument("no clock bracket to choose from");
    const ClockBracket* best = &tries.front();
    for (const ClockBracket& b : tries) {
        check(b);
        if (b.halfWidthUs() < best->halfWidthUs()) best = &b;
    }
    return *best;
}

ClockFit fitClock(std::span<const ClockBracket> points) {
    if (points.empty()) throw std::invalid_argument("no clock point to fit");
    ClockFit fit;
    fit.points = points.size();
    fit.deviceOriginUs = points.front().deviceUs;
    // Sums relative to the first point keep the numbers small: host times are about 1e11 µs.
    const double hostOrigin = points.front().hostMidUs();
    double sx = 0, sy = 0;
    for (const ClockBracket& p : points) {
        check(p);
        sx += p.deviceUs - fit.deviceOriginUs;
        sy += p.hostMidUs() - hostOrigin;
    }
    const double n = double(points.size());
    const double mx = sx / n, my = sy / n;
    double sxx = 0, sxy = 0;
    for (const ClockBracket& p : points) {
        const double dx = p.deviceUs - fit.deviceOriginUs - mx;
        sxx += dx * dx;
        sxy += dx * (p.hostMidUs() - hostOrigin - my);
    }
    fit.slope = sxx > 0 ? sxy / sxx : 1.0;
    fit.hostAtOriginUs = hostOrigin + my - fit.slope * mx;
    double widest = 0, residual = 0;
    for (const ClockBracket& p : points) {
        widest = std::max(widest, p.halfWidthUs());
        residual = std::max(residual, std::abs(p.hostMidUs() - toHostUs(fit, p.deviceUs)));
    }
    fit.errorUs = widest + residual;
    return fit;
}

} // namespace estuary
