#include "colormap.h"
#include "errors.h"
#include "input_file.h"

#include <charconv>
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

} // namespace

std::vector<std::array<float, 3>> loadColormapFile(const std::filesystem::path& file) {
    requireRegularFile(file, "colormap file");
    std::ifstream in(file);
    if (!in) throw runtimeError("cannot open colormap file " + file.string());
    std::vector<std::array<float, 3>> table;
    table.reserve(kColormapSize);
    std::string line;
    uint32_t lineNumber = 0;
    const auto fail = [&](uint32_t at, const std::string& what) {
        return runtimeError(file.string() + ":" + std::to_string(at) + ": " + what);
    };
    while (std::getline(in, line)) {
        ++lineNumber;
        if (isBlank(line) || line[line.find_first_not_of(" \t")] == '#') continue;
        if (table.size() == kColormapSize)
            throw fail(lineNumber, "more than " + std::to_string(kColormapSize) + " entries");
        const auto rgb = parseRgb(line);
        if (!rgb)
            throw fail(lineNumber,
                       "expected \"r g b\" with three numbers in [0,1], got \"" + line + "\"");
        table.push_back(*rgb);
    }
    if (table.size() != kColormapSize)
        throw fail(lineNumber + 1, "file ends after " + std::to_string(table.size()) +
                                       " entries; expected " + std::to_string(kColormapSize));
    return table;
}

} // namespace estuary
