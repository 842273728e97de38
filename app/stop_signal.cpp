#include "stop_signal.h"

#include <atomic>
#include <csignal>
#include <cstring>
#include <ctime>
#include <unistd.h>

namespace estuary {
namespace {

// Lock-free, so the handler may store them (async-signal-safe).
std::atomic<int> gStopSignal{0};
std::atomic<int64_t> gStopAtNs{0};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<int64_t>::is_always_lock_free);

// setHardStopRemoval's path: written before gRemovalSet is published, read by the handler after.
char gRemoval[4096];
std::atomic<bool> gRemovalSet{false};

int64_t monotonicNs() {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now); // async-signal-safe
    return int64_t(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

void writeText(const char* text) {
    size_t length = 0;
    while (text[length])
        ++length;
    ssize_t written = write(STDERR_FILENO, text, length);
    (void)written;
}

// The first stop signal is recorded; copies of it and other stop signals arriving later do not
// kill the run (`timeout` sends TERM to the process and again to its group): only a SIGINT
// coming more than the grace period after the first stop request (someone pressing Ctrl-C again)
// ends it at once, saying so.
void recordStop(int signal) {
    int none = 0;
    const int64_t now = monotonicNs();
    if (gStopSignal.compare_exchange_strong(none, signal, std::memory_order_relaxed)) {
        gStopAtNs.store(now, std::memory_order_relaxed);
        return;
    }
    if (signal == SIGINT && now - gStopAtNs.load(std::memory_order_relaxed) > kHardStopGraceNs) {
        writeText("estuary: a second Ctrl-C: ending now; what was asked is NOT written\n");
        if (gRemovalSet.load(std::memory_order_acquire)) (void)unlink(gRemoval); // signal-safe
        _exit(stoppedExitCode(SIGINT));
    }
}

} // namespace

void installStopHandlers() {
    struct sigaction action {};
    action.sa_handler = recordStop;
    sigemptyset(&action.sa_mask);
    // SA_RESTART: blocking calls in libraries (the window system's poll, file writes) are not
    // failed by the signal. No SA_RESETHAND: a repeated signal must not find the default action.
    action.sa_flags = SA_RESTART;
    for (int signal : {SIGINT, SIGTERM, SIGHUP})
        sigaction(signal, &action, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGXFSZ, SIG_IGN);
}

void setHardStopRemoval(const char* path) {
    gRemovalSet.store(false, std::memory_order_release);
    const size_t length = path ? std::strlen(path) : 0;
    if (length == 0 || length >= sizeof(gRemoval)) return;
    std::memcpy(gRemoval, path, length + 1);
    gRemovalSet.store(true, std::memory_order_release);
}

int stopSignal() {
    return gStopSignal.load(std::memory_order_relaxed);
}

const char* stopSignalName(int signal) {
    if (signal == SIGINT) return "SIGINT";
    if (signal == SIGTERM) return "SIGTERM";
    if (signal == SIGHUP) return "SIGHUP";
    return "a signal";
}

void clearStopRequest() {
    gStopSignal.store(0, std::memory_order_relaxed);
    gStopAtNs.store(0, std::memory_order_relaxed);
}

} // namespace estuary
