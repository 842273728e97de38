#include "stop_signal.h"

#include <atomic>
#include <csignal>

namespace estuary {
namespace {

// Lock-free, so the handler may store it (async-signal-safe).
std::atomic<int> gStopSignal{0};
static_assert(std::atomic<int>::is_always_lock_free);

void recordStop(int signal) {
    int none = 0;
    gStopSignal.compare_exchange_strong(none, signal, std::memory_order_relaxed);
}

} // namespace

void installStopHandlers() {
    struct sigaction action {};
    action.sa_handler = recordStop;
    sigemptyset(&action.sa_mask);
    // SA_RESETHAND: the second Ctrl-C finds the default action; SA_RESTART: blocking calls in
    // libraries (the window system's poll, file writes) are not failed by the first.
    action.sa_flags = SA_RESETHAND | SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
}

int stopSignal() {
    return gStopSignal.load(std::memory_order_relaxed);
}

const char* stopSignalName(int signal) {
    if (signal == SIGINT) return "SIGINT";
    if (signal == SIGTERM) return "SIGTERM";
    return "a signal";
}

void clearStopRequest() {
    gStopSignal.store(0, std::memory_order_relaxed);
}

} // namespace estuary
