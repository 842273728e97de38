// estuary_add_lines_view (estuary.h).
#include "c_api_internal.h"

namespace estuary::lib {
estuary_view* addLinesView(estuary_viewer& v, const estuary_lines_view_desc& desc);
}
using namespace estuary::lib;
using namespace estuary::lib::capi;

estuary_status estuary_add_lines_view(estuary_viewer* viewer, const estuary_lines_view_desc* desc,
                                      estuary_view** view) {
    return addViewCall("estuary_add_lines_view", viewer, desc, "estuary_lines_view_desc", view,
                       [](estuary_viewer& v, estuary_lines_view_desc& d) {
                           d.vertices = member(v, d.vertices, "desc.vertices");
                           d.indices = member(v, d.indices, "desc.indices");
                           resolveAttributes(v, d.attributes);
                           return addLinesView(v, d);
                       });
}
