// Errors for the whole project, with no Vulkan and no CUDA in sight: one exception type carrying
// the process exit code it maps to. Everything estuary throws on purpose is an estuary::Error;
// main() prints what() and returns code(). vk_check.h (Vulkan) and cuda_check.h (CUDA) turn API
// failures into these.
#pragma once

#include <stdexcept>
#include <string>

namespace estuary {

// Process exit codes; documented in the README and by `estuary --help`.
enum class ExitCode : int { Ok = 0, Runtime = 1, Usage = 2, Unsupported = 3 };

class Error : public std::runtime_error {
  public:
    Error(ExitCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
    ExitCode code() const { return code_; }

  private:
    ExitCode code_;
};

// The environment cannot run what was asked: no suitable device, missing extension, format not
// exportable, not enough GPU memory. Maps to exit code 3.
inline Error unsupported(const std::string& what) {
    return Error(ExitCode::Unsupported, what);
}
inline Error runtimeError(const std::string& what) {
    return Error(ExitCode::Runtime, what);
}
inline Error usageError(const std::string& what) {
    return Error(ExitCode::Usage, what);
}

// What to tell the user when a GPU allocation fails, whichever API reported it.
inline constexpr const char* kOutOfGpuMemoryHint =
    "the GPU has not enough free memory for this run; try a smaller --size or fewer "
    "--frames-in-flight, or close other programs using the GPU";

} // namespace estuary
