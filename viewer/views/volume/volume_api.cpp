// estuary_add_volume_view (estuary.h).
#include "c_api_internal.h"

namespace estuary::lib {
estuary_view* addVolumeView(estuary_viewer& v, const estuary_volume_view_desc& desc);
}
using namespace estuary::lib;
using namespace estuary::lib::capi;

estuary_status estuary_add_volume_view(estuary_viewer* viewer, const estuary_volume_view_desc* desc,
                                       estuary_view** view) {
    return addViewCall("estuary_add_volume_view", viewer, desc, "estuary_volume_view_desc", view,
                       [](estuary_viewer& v, estuary_volume_view_desc& d) {
                           d.image = member(v, d.image, "desc.image");
                           return addVolumeView(v, d);
                       });
}
