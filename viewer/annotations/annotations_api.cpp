// estuary_set_view_legend (estuary.h): the names of a categorical palette's entries, checked and
// copied onto the view, where panel_annotations.cpp reads them for the view's colorbar.
#include "c_api_internal.h"
#include "panel_annotations.h"

#include <string_view>

using namespace estuary;
using namespace estuary::lib;
using namespace estuary::lib::capi;

namespace {

constexpr uint32_t kMaxLegendNames = 256; // a categorical palette's most entries
constexpr size_t kMaxLegendNameBytes = 256;

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
