// estuary_add_points_view (estuary.h).
#include "c_api_internal.h"

namespace estuary::lib {
estuary_view* addPointsView(estuary_viewer& v, const estuary_points_view_desc& desc);
}
using namespace estuary::lib;
using namespace estuary::lib::capi;

estuary_status estuary_add_points_view(estuary_viewer* viewer, const estuary_points_view_desc* desc,
                                       estuary_view** view) {
    return addViewCall("estuary_add_points_view", viewer, desc, "estuary_points_view_desc", view,
                       [](estuary_viewer& v, estuary_points_view_desc& d) {
                           d.buffer = member(v, d.buffer, "desc.buffer");
                           resolveAttributes(v, d.attributes);
                           return addPointsView(v, d);
                       });
}
