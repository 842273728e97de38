// estuary_add_mesh_view (estuary.h).
#include "c_api_internal.h"

namespace estuary::lib {
estuary_view* addMeshView(estuary_viewer& v, const estuary_mesh_view_desc& desc);
}
using namespace estuary::lib;
using namespace estuary::lib::capi;

estuary_status estuary_add_mesh_view(estuary_viewer* viewer, const estuary_mesh_view_desc* desc,
                                     estuary_view** view) {
    return addViewCall("estuary_add_mesh_view", viewer, desc, "estuary_mesh_view_desc", view,
                       [](estuary_viewer& v, estuary_mesh_view_desc& d) {
                           d.vertices = member(v, d.vertices, "desc.vertices");
                           d.indices = member(v, d.indices, "desc.indices");
                           d.normals = member(v, d.normals, "desc.normals");
                           resolveAttributes(v, d.attributes);
                           return addMeshView(v, d);
                       });
}
