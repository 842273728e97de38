// estuary_add_labels_view (estuary.h).
#include "c_api_internal.h"

namespace estuary::lib {
estuary_view* addLabelsView(estuary_viewer& v, const estuary_labels_view_desc& desc);
}
using namespace estuary::lib;
using namespace estuary::lib::capi;

estuary_status estuary_add_labels_view(estuary_viewer* viewer, const estuary_labels_view_desc* desc,
                                       estuary_view** view) {
    return addViewCall("estuary_add_labels_view", viewer, desc, "estuary_labels_view_desc", view,
                       [](estuary_viewer& v, estuary_labels_view_desc& d) {
                           d.buffer = member(v, d.buffer, "desc.buffer");
                           resolveAttributes(v, d.attributes);
                           return addLabelsView(v, d);
                       });
}
