// estuary_set_view_legend (estuary.h): the names of a categorical palette's entries, checked and
// copied onto the view, where panel_annotations.cpp reads them for the view's colorbar.
#include "c_api_internal.h"

#include <string_view>

using namespace estuary;
using namespace estuary::lib;
using namespace estuary::lib::capi;

namespace {

constexpr uint32_t kMaxLegendNames = 256; // a categorical palette's most entries
constexpr size_t kMaxLegendNameBytes = 256;

// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or values above U+10FFFF).
bool validUtf8(std::string_view s) {
    for (size_t i = 0; i < s.size();) {
        const auto c = uint8_t(s[i]);
        const size_t n = c < 0x80             ? 1
                         : (c & 0xE0) == 0xC0 ? 2
                         : (c & 0xF0) == 0xE0 ? 3
                         : (c & 0xF8) == 0xF0 ? 4
                                              : 0;
        if (n == 0 || i + n > s.size()) return false;
        uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1Fu : n == 3 ? c & 0x0Fu : c & 0x07u;
        for (size_t k = 1; k < n; ++k) {
            const auto b = uint8_t(s[i + k]);
            if ((b & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (b & 0x3Fu);
        }
        static const uint32_t kLeast[] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < kLeast[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += n;
    }
    return true;
}

} // namespace

estuary_status estuary_set_view_legend(estuary_view* view, const char* const* names,
                                       uint32_t count) {
    return guard("estuary_set_view_legend", [&] {
        estuary_view& w = resolve(view, "view");
        if (count > kMaxLegendNames)
            throw usageError("count " + std::to_string(count) + ": at most " +
                             std::to_string(kMaxLegendNames) + " names (a palette's most entries)");
        if (count > 0) require(names, "names (with count > 0)");
        std::vector<std::string> copied;
        for (uint32_t i = 0; i < count; ++i) {
            const std::string where = "names[" + std::to_string(i) + "]";
            require(names[i], where.c_str());
            const std::string_view name(names[i]);
            if (name.size() > kMaxLegendNameBytes)
                throw usageError(where + " is " + std::to_string(name.size()) +
                                 " bytes long: at most " + std::to_string(kMaxLegendNameBytes));
            if (!validUtf8(name)) throw usageError(where + " is not valid UTF-8");
            copied.emplace_back(name);
        }
        w.legend = std::move(copied);
    });
}
