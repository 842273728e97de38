#include "watchdog.h"
#include "errors.h"
#include "gpu_wait.h"
#include "stop_signal.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <unistd.h>

namespace estuary {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int64_t kNoDeadline = INT64_MAX;
constexpr uint64_t kStopGraceWithoutTimeoutNs = 30'000'000'000ull;

// The main thread's current promise. Written only by the main thread; the watchdog may read a
// torn set, which at worst names the previous scope in its message.
std::atomic<int64_t> gDeadline{kNoDeadline}; // steady-clock nanoseconds
std::atomic<uint64_t> gLimit{UINT64_MAX};    // the scope's timeout plus slack
std::atomic<const char*> gWhat{nullptr};
std::atomic<uint64_t> gNumber{0};
std::atomic<bool> gStarted{false};

int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
        .count();
}

uint64_t saturatingAdd(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

int64_t deadlineAfter(int64_t now, uint64_t limit) {
    return limit >= uint64_t(kNoDeadline - now) ? kNoDeadline : now + int64_t(limit);
}

void arm(const char* what, uint64_t number, uint64_t limit) {
    gWhat.store(what);
    gNumber.store(number);
    gLimit.store(limit);
    gDeadline.store(deadlineAfter(nowNs(), limit));
}

// Ends the process from the watchdog thread: the main thread is stuck inside a driver, so no
// destructor or exit handler can be trusted to return.
[[noreturn]] void endProcess(int code, const std::string& what) {
    std::fprintf(stderr,
                 "estuary: error: %s: a driver call has not returned, the GPU may be hung; "
                 "exiting without cleanup (the driver frees the GPU's objects; the files written "
                 "so far are complete)\n",
                 what.c_str());
    _exit(code);
}

std::string currentWork() {
    const char* what = gWhat.load();
    if (!what) return "outside any GPU work";
    return std::string(what) + " " + std::to_string(gNumber.load());
}

void watch() {
    int64_t stopSeenAt = 0;
    for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        const int64_t now = nowNs();
        const int64_t deadline = gDeadline.load();
        if (now > deadline) {
            endProcess(int(ExitCode::Runtime),
                       currentWork() + " took more than " + formatSeconds(gLimit.load()));
        }
        if (const int signal = stopSignal()) {
            if (!stopSeenAt) stopSeenAt = now;
            // A healthy run stops within a frame; ESTUARY_WAIT_TIMEOUT_S=0 (wait forever) still
            // gets a bound here, so one SIGTERM always ends the process.
            const uint64_t timeout = gpuWaitTimeoutNs();
            const uint64_t grace = saturatingAdd(
                timeout == UINT64_MAX ? kStopGraceWithoutTimeoutNs : timeout, watchdogSlackNs());
            if (uint64_t(now - stopSeenAt) > grace) {
                endProcess(stoppedExitCode(signal), std::string(stopSignalName(signal)) +
                                                        " not honoured after " +
                                                        formatSeconds(uint64_t(now - stopSeenAt)) +
                                                        ", still " + currentWork());
            }
        }
    }
}

} // namespace

void startWatchdog() {
    if (gStarted.exchange(true)) return;
    std::thread(watch).detach();
}

uint64_t frameTimeoutNs(double slowestFrameMs) {
    if (const auto set = gpuWaitTimeoutOverrideNs()) return *set;
    const double stretched = 50.0 * slowestFrameMs * 1e6;
    return stretched >= double(UINT64_MAX) ? UINT64_MAX
                                           : std::max(gpuWaitTimeoutNs(), uint64_t(stretched));
}

uint64_t watchdogSlackNs() {
    return 3'000'000'000ull;
}

WatchdogScope::WatchdogScope(const char* what, uint64_t number, uint64_t timeoutNs)
    : savedWhat_(gWhat.load()), savedNumber_(gNumber.load()), savedLimit_(gLimit.load()) {
    arm(what, number, saturatingAdd(timeoutNs, watchdogSlackNs()));
}

WatchdogScope::~WatchdogScope() {
    arm(savedWhat_, savedNumber_, savedLimit_);
}

} // namespace estuary
