// Errors for the whole project: one exception type carrying the process exit code it maps to, and
// the Vulkan check macros. Every Vulkan call that can fail goes through VK_CHECK (throws) or VK_TRY
// (returns the VkResult to the caller for codes the caller handles, e.g. VK_SUBOPTIMAL_KHR).
#pragma once

#include <volk.h>

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
// exportable. Maps to exit code 3.
inline Error unsupported(const std::string& what) {
    return Error(ExitCode::Unsupported, what);
}
inline Error runtimeError(const std::string& what) {
    return Error(ExitCode::Runtime, what);
}

const char* vkResultName(VkResult result);

[[noreturn]] void throwVkFailure(VkResult result, const char* expr, const char* file, int line);

} // namespace estuary

#define VK_CHECK(expr)                                                                             \
    do {                                                                                           \
        VkResult vkCheckResult_ = (expr);                                                          \
        if (vkCheckResult_ != VK_SUCCESS)                                                          \
            ::estuary::throwVkFailure(vkCheckResult_, #expr, __FILE__, __LINE__);                  \
    } while (0)
