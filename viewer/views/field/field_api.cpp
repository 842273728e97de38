// estuary_add_field_view (estuary.h).
#include "c_api_internal.h"

namespace estuary::lib {
estuary_view* addFieldView(estuary_viewer& v, const estuary_field_view_desc& desc);
}
using namespace estuary::lib;
using namespace estuary::lib::capi;

estuary_status estuary_add_field_view(estuary_viewer* viewer, const estuary_field_view_desc* desc,
                                      estuary_view** view) {
    return addViewCall("estuary_add_field_view", viewer, desc, "estuary_field_view_desc", view,
                       [](estuary_viewer& v, estuary_field_view_desc& d) {
                           d.image = member(v, d.image, "desc.image");
                           return addFieldView(v, d);
                       });
}
