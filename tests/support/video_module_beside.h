// The video module (viewer/recording/video/video_module.h) beside the running test binary, as
// libestuary loads it: for tests that encode or decode through the same FFmpeg estuary uses.
// Header-only; the including target needs viewer/recording on its include path and libdl.
#pragma once

#include "video/video_module.h"

#include <dlfcn.h>

#include <filesystem>
#include <string>

namespace estuary::test {

// Null, with `why`, where the module does not load or is not this estuary's.
inline const EstuaryVideoApi* videoModuleBeside(std::string& why) {
    const auto dir = std::filesystem::read_symlink("/proc/self/exe").parent_path();
    void* module = dlopen((dir / "libestuary_video.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!module) {
        const char* error = dlerror();
        why = error ? error : "libestuary_video.so did not load";
        return nullptr;
    }
    using Entry = const EstuaryVideoApi* (*)();
    const auto entry = reinterpret_cast<Entry>(dlsym(module, "estuary_video_api"));
    const EstuaryVideoApi* api = entry ? entry() : nullptr;
    if (!api || api->version != kEstuaryVideoApiVersion) {
        why = "libestuary_video.so is not this estuary's video module";
        return nullptr;
    }
    return api;
}

} // namespace estuary::test
