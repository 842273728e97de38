// How long a host wait for the GPU may last before it counts as a hang, for every layer that
// waits (the foundation, interop, the app): ESTUARY_WAIT_TIMEOUT_S (seconds; 0 waits forever)
// where set, otherwise 20 s. Frame loops stretch the default for slow frames (see app/frame.cpp),
// so slow drivers, valgrind and huge sizes are not taken for hangs. Header-only, no GPU API.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

namespace estuary {

// ESTUARY_WAIT_TIMEOUT_S in nanoseconds (UINT64_MAX for 0), when set to a valid value.
inline std::optional<uint64_t> gpuWaitTimeoutOverrideNs() {
    static const std::optional<uint64_t> timeout = []() -> std::optional<uint64_t> {
        const char* text = std::getenv("ESTUARY_WAIT_TIMEOUT_S");
        if (!text || !*text) return std::nullopt;
        char* end = nullptr;
        const double seconds = std::strtod(text, &end);
        if (*end != '\0' || !(seconds >= 0.0) || seconds > 1e9) {
            std::fprintf(stderr,
                         "estuary: ESTUARY_WAIT_TIMEOUT_S=%s is not a number of seconds (0 waits "
                         "forever); ignoring it\n",
                         text);
            return std::nullopt;
        }
        return seconds == 0.0 ? UINT64_MAX : uint64_t(seconds * 1e9);
    }();
    return timeout;
}

inline uint64_t gpuWaitTimeoutNs() {
    return gpuWaitTimeoutOverrideNs().value_or(20'000'000'000ull);
}

// "2.0 s": a wait's bound or length in messages.
inline std::string formatSeconds(uint64_t ns) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.1f s", double(ns) / 1e9);
    return text;
}

} // namespace estuary
