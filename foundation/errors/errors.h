// Errors for the whole project, with no Vulkan and no CUDA in sight: estuary::Error (error.hpp,
// the public C++ API's exception) carries a status that doubles as the process exit code.
// Everything estuary throws on purpose is an estuary::Error; main() prints what() and returns
// exitCode(). vk_check.h (Vulkan) and cuda_check.h (CUDA) turn API failures into these.
#pragma once

#include "estuary/error.hpp"

#include <string>

namespace estuary {

// Process exit codes; documented in the README and by `estuary --help`. The same numbers as the
// estuary_status of the C API.
enum class ExitCode : int { Ok = 0, Runtime = 1, Usage = 2, Unsupported = 3 };

inline ExitCode exitCode(estuary_status status) {
    switch (status) {
    case ESTUARY_OK:
        return ExitCode::Ok;
    case ESTUARY_ERROR_INVALID_ARGUMENT:
    case ESTUARY_ERROR_INVALID_HANDLE:
        return ExitCode::Usage;
    case ESTUARY_ERROR_UNSUPPORTED:
    case ESTUARY_ERROR_OUT_OF_MEMORY: // the machine is too small for what was asked
        return ExitCode::Unsupported;
    default: // runtime failures, a lost device, a timeout
        return ExitCode::Runtime;
    }
}
inline ExitCode exitCode(const Error& error) {
    return exitCode(error.status());
}

// The environment cannot run what was asked: no suitable device, missing extension, format not
// exportable, not enough GPU memory. Maps to exit code 3.
inline Error unsupported(const std::string& what) {
    return Error(ESTUARY_ERROR_UNSUPPORTED, what);
}
inline Error runtimeError(const std::string& what) {
    return Error(ESTUARY_ERROR_RUNTIME, what);
}
inline Error usageError(const std::string& what) {
    return Error(ESTUARY_ERROR_INVALID_ARGUMENT, what);
}
// Memory ran out for an allocation (GPU or host); the caller may retry smaller. Exit code 3.
inline Error outOfMemory(const std::string& what) {
    return Error(ESTUARY_ERROR_OUT_OF_MEMORY, what);
}
// The device is gone (VK_ERROR_DEVICE_LOST, a sticky CUDA error): recreate. Exit code 1.
inline Error deviceLost(const std::string& what) {
    return Error(ESTUARY_ERROR_DEVICE_LOST, what);
}
// A bounded wait for the GPU ran out. Exit code 1.
inline Error timeoutError(const std::string& what) {
    return Error(ESTUARY_ERROR_TIMEOUT, what);
}
// A destroyed, foreign or garbage handle. Exit code 2.
inline Error invalidHandle(const std::string& what) {
    return Error(ESTUARY_ERROR_INVALID_HANDLE, what);
}

// What to tell the user when a GPU allocation fails, whichever API reported it.
inline constexpr const char* kOutOfGpuMemoryHint =
    "the GPU has not enough free memory for this run; try a smaller --size or fewer "
    "--frames-in-flight, or close other programs using the GPU";

} // namespace estuary
