// estuary.h's serving functions (viewer/serve/serve.h does the work).
#include "c_api_internal.h"

using namespace estuary;
using namespace estuary::lib;
using namespace estuary::lib::capi;

extern "C" {

estuary_status estuary_serve_start(estuary_viewer* viewer, const estuary_serve_desc* desc) {
    return guard("estuary_serve_start", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        const estuary_serve_desc d = readStruct(desc, "desc", "estuary_serve_desc");
        if (v.frame.active)
            throw usageError("estuary_serve_start: between frames only (frame " +
                             std::to_string(v.frame.index) + " has begun)");
        startServing(v, d);
    });
}

estuary_status estuary_serve_stop(estuary_viewer* viewer) {
    return guard("estuary_serve_stop", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        const CudaDeviceScope device(&v);
        stopServing(v);
    });
}

estuary_status estuary_get_serve_info(estuary_viewer* viewer, estuary_serve_info* info) {
    return guard("estuary_get_serve_info", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        checkOutput(info, "info", "estuary_serve_info");
        writeStruct(info, serveInfo(v));
    });
}

} // extern "C"
