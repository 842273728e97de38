// The last line of defence against a hang inside a driver call. Every wait estuary makes on the GPU
// is bounded, but a driver may still block inside a call that has no timeout (lavapipe's
// vkGetQueryPoolResults waits for the whole queue, a wedged GPU can stall a submission). The main
// thread states, around work that talks to the GPU, how long it may take; a background thread
// ends the process with a message naming that work if it takes longer, and does the same when a
// SIGINT/SIGTERM has not been honoured within the grace time because the main thread is stuck.
// Files are written atomically, so ending the process this way loses none.
#pragma once

#include <cstdint>

namespace estuary {

// Starts the thread (once; later calls do nothing).
void startWatchdog();

// While alive, the main thread promises to be done with `what` (and `number`, e.g. a frame) within
// `timeoutNs` of the scope's start, plus watchdogSlackNs(): `timeoutNs` is the bound of the waits
// inside, which should fail first with the better message. UINT64_MAX promises nothing (waiting
// for the user). Scopes nest: the inner promise holds until it ends; then the outer one applies
// again, counted afresh from then (finishing the inner work is progress).
class WatchdogScope {
  public:
    WatchdogScope(const char* what, uint64_t number, uint64_t timeoutNs);
    ~WatchdogScope();
    WatchdogScope(const WatchdogScope&) = delete;
    WatchdogScope& operator=(const WatchdogScope&) = delete;

  private:
    const char* savedWhat_;
    uint64_t savedNumber_;
    uint64_t savedLimit_;
};

// How long the viewer's waits for a frame may last, so the watchdog's promise around a frame is
// never the shorter: ESTUARY_WAIT_TIMEOUT_S where set, else 20 s or 50 times the slowest frame so
// far, whichever is longer (the viewer's own rule).
uint64_t frameTimeoutNs(double slowestFrameMs);

// The time the watchdog allows beyond a scope's timeout. A stop request may go unanswered for the
// GPU wait timeout plus this slack before the process ends with 128 + the signal.
uint64_t watchdogSlackNs();

} // namespace estuary
