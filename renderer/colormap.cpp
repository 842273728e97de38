#include "colormap.h"
#include "errors.h"
#include "input_file.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <string>

namespace estuary {

std::optional<uint32_t> findColormap(std::string_view name) {
    for (uint32_t i = 0; i < kColormapCount; ++i)
        if (name == kColormapNames[i]) return i;
    return std::nullopt;
}

namespace {

bool isBlank(std::string_view s) {
    return s.find_first_not_of(" \t\r") == std::string_view::npos;
}

std::string_view trimmed(std::string_view s) {
    const size_t first = s.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// Parses exactly three floats in [0,1] separated by blanks; nothing else may follow.
std::optional<std::array<float, 3>> parseRgb(std::string_view line) {
    std::array<float, 3> rgb{};
    const char* p = line.data();
    const char* end = line.data() + line.size();
    for (float& c : rgb) {
        while (p < end && (*p == ' ' || *p == '\t'))
            ++p;
        const auto [next, ec] = std::from_chars(p, end, c);
        if (ec != std::errc() || next == p || !(c >= 0.0f && c <= 1.0f)) return std::nullopt;
        p = next;
    }
    if (!isBlank(std::string_view(p, size_t(end - p)))) return std::nullopt;
    return rgb;
}

uint8_t toUnorm8(float c) {
    return static_cast<uint8_t>(std::lround(std::clamp(c, 0.0f, 1.0f) * 255.0f));
}

float srgbToLinear(float c) {
    return c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f);
}
float linearToSrgb(float c) {
    return c <= 0.0031308f ? c * 12.92f : 1.055f * std::pow(c, 1.0f / 2.4f) - 0.055f;
}

// a + (b - a) * t per channel, in sRGB-encoded values or in linear light.
std::array<float, 4> blend(const std::array<float, 4>& a, const std::array<float, 4>& b, float t,
                           bool linear) {
    std::array<float, 4> out{};
    for (int c = 0; c < 4; ++c) {
        if (linear && c < 3) {
            const float la = srgbToLinear(a[c]), lb = srgbToLinear(b[c]);
            out[c] = linearToSrgb(la + (lb - la) * t);
        } else {
            out[c] = a[c] + (b[c] - a[c]) * t;
        }
    }
    return out;
}

void putTexel(ColormapRow& row, uint32_t i, const std::array<float, 4>& rgba) {
    for (int c = 0; c < 4; ++c)
        row[i * 4 + c] = toUnorm8(rgba[c]);
}

ColormapRow paletteRow(std::span<const std::array<float, 4>> palette) {
    ColormapRow row{};
    for (uint32_t i = 0; i < kColormapSize; ++i)
        putTexel(row, i, palette[i % palette.size()]);
    return row;
}

std::string stopName(size_t i) {
    return "stop " + std::to_string(i);
}

void checkColour(const std::array<float, 4>& rgba, const std::string& what) {
    for (float c : rgba) {
        if (std::isnan(c)) throw usageError(what + " has a NaN colour channel");
        if (c < 0.0f || c > 1.0f)
            throw usageError(what + " has a colour channel " + std::to_string(c) +
                             " outside 0..1 (colours are sRGB-encoded values 0..1)");
    }
}

} // namespace

std::filesystem::path builtinColormapFile(const std::filesystem::path& dataDir, uint32_t index) {
    return dataDir / "assets" / "colormaps" / (std::string(kColormapNames[index]) + ".txt");
}

ColormapTable loadColormapFile(const std::filesystem::path& file) {
    requireRegularFile(file, "colormap file");
    std::ifstream in(file);
    if (!in) throw runtimeError("cannot open colormap file " + file.string());
    ColormapTable table;
    table.entries.reserve(kColormapSize);
    std::string line;
    uint32_t lineNumber = 0;
    const auto fail = [&](uint32_t at, const std::string& what) {
        return runtimeError(file.string() + ":" + std::to_string(at) + ": " + what);
    };
    while (std::getline(in, line)) {
        ++lineNumber;
        if (isBlank(line) || line[line.find_first_not_of(" \t")] == '#') continue;
        if (trimmed(line) == "categorical") {
            if (table.categorical || !table.entries.empty())
                throw fail(lineNumber, "\"categorical\" must come once, before the entries");
            table.categorical = true;
            continue;
        }
        if (table.entries.size() == kColormapSize)
            throw fail(lineNumber, "more than " + std::to_string(kColormapSize) + " entries");
        const auto rgb = parseRgb(line);
        if (!rgb)
            throw fail(lineNumber,
                       "expected \"r g b\" with three numbers in [0,1], got \"" + line + "\"");
        table.entries.push_back(*rgb);
    }
    if (table.categorical ? table.entries.empty() : table.entries.size() != kColormapSize)
        throw fail(lineNumber + 1, "file ends after " + std::to_string(table.entries.size()) +
                                       " entries; expected " +
                                       (table.categorical ? std::string("1 to ") : std::string()) +
                                       std::to_string(kColormapSize));
    return table;
}

ColormapRow colormapRow(const ColormapTable& table) {
    std::vector<std::array<float, 4>> rgba;
    for (const auto& c : table.entries)
        rgba.push_back({c[0], c[1], c[2], 1.0f});
    if (table.categorical) return paletteRow(rgba);
    ColormapRow row{};
    for (uint32_t i = 0; i < kColormapSize; ++i)
        putTexel(row, i, rgba.at(i));
    return row;
}

ColormapRow colormapRowFromStops(std::span<const ColormapStop> stops, bool linear,
                                 bool categorical) {
    if (stops.empty()) throw usageError("no stops: a colormap needs at least one");
    if (categorical && stops.size() > kColormapSize)
        throw usageError(std::to_string(stops.size()) +
                         " stops: a categorical palette has at most " +
                         std::to_string(kColormapSize) + " entries");
    for (size_t i = 0; i < stops.size(); ++i) {
        const float p = stops[i].position;
        if (std::isnan(p)) throw usageError(stopName(i) + " has a NaN position");
        if (p < 0.0f || p > 1.0f)
            throw usageError(stopName(i) + " is at " + std::to_string(p) + ": positions are 0..1");
        if (i > 0 && !(p > stops[i - 1].position))
            throw usageError(stopName(i) + " is at " + std::to_string(p) + ", not after stop " +
                             std::to_string(i - 1) + " at " +
                             std::to_string(stops[i - 1].position) + ": positions must increase");
        checkColour(stops[i].rgba, stopName(i));
    }
    if (categorical) {
        std::vector<std::array<float, 4>> palette;
        for (const ColormapStop& s : stops)
            palette.push_back(s.rgba);
        return paletteRow(palette);
    }
    ColormapRow row{};
    size_t next = 0; // the first stop at or after x
    for (uint32_t i = 0; i < kColormapSize; ++i) {
        const float x = float(i) / float(kColormapSize - 1);
        while (next < stops.size() && stops[next].position < x)
            ++next;
        if (next == 0) {
            putTexel(row, i, stops.front().rgba);
        } else if (next == stops.size()) {
            putTexel(row, i, stops.back().rgba);
        } else {
            const ColormapStop &a = stops[next - 1], &b = stops[next];
            const float t = (x - a.position) / (b.position - a.position);
            putTexel(row, i, blend(a.rgba, b.rgba, t, linear));
        }
    }
    return row;
}

ColormapRow colormapRowFromSamples(std::span<const float> rgba, bool linear, bool categorical) {
    const size_t count = rgba.size() / 4;
    if (count == 0) throw usageError("no samples: a colormap needs at least one");
    if (categorical && count > kColormapSize)
        throw usageError(std::to_string(count) + " samples: a categorical palette has at most " +
                         std::to_string(kColormapSize) + " entries");
    std::vector<std::array<float, 4>> samples(count);
    for (size_t i = 0; i < count; ++i) {
        for (int c = 0; c < 4; ++c)
            samples[i][c] = rgba[i * 4 + c];
        checkColour(samples[i], "sample " + std::to_string(i));
    }
    if (categorical) return paletteRow(samples);
    ColormapRow row{};
    for (uint32_t i = 0; i < kColormapSize; ++i) {
        const double at = count == 1 ? 0.0 : double(i) * double(count - 1) / (kColormapSize - 1);
        const size_t lo = std::min(size_t(at), count - 1), hi = std::min(lo + 1, count - 1);
        putTexel(row, i, blend(samples[lo], samples[hi], float(at - double(lo)), linear));
    }
    return row;
}

} // namespace estuary
