// estuary_add_text_view, estuary_set_text (estuary.h).
#include "c_api_internal.h"

namespace estuary::lib {
estuary_view* addTextView(estuary_viewer& v, const estuary_text_view_desc& desc);
void setText(estuary_viewer& v, estuary_view& view, const char* utf8);
} // namespace estuary::lib
using namespace estuary::lib;
using namespace estuary::lib::capi;

estuary_status estuary_add_text_view(estuary_viewer* viewer, const estuary_text_view_desc* desc,
                                     estuary_view** view) {
    return addViewCall(
        "estuary_add_text_view", viewer, desc, "estuary_text_view_desc", view,
        [](estuary_viewer& v, estuary_text_view_desc& d) { return addTextView(v, d); });
}

estuary_status estuary_set_text(estuary_view* text_view, const char* utf8) {
    return guard("estuary_set_text", [&] {
        estuary_view& w = resolve(text_view, "text_view");
        setText(*w.viewer, w, utf8);
    });
}
