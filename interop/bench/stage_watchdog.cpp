#include "stage_watchdog.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include <unistd.h>

namespace estuary::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Watchdog {
    std::mutex mutex;
    std::condition_variable wake;
    std::string program = "watchdog", stage = "start";
    Clock::time_point since = Clock::now();
    std::chrono::seconds limit{20};
    bool stop = false;
    std::atomic<uint32_t> done{0}, of{0};
    std::thread thread;
};

Watchdog& watchdog() {
    static Watchdog w;
    return w;
}

[[noreturn]] void reportStuck(Watchdog& w) {
    char progress[64] = "";
    const uint32_t of = w.of.load();
    if (of) std::snprintf(progress, sizeof(progress), " (at %u of %u)", w.done.load(), of);
    char text[768];
    const int n =
        std::snprintf(text, sizeof(text), "%s: stuck in %s%s after %lld s\n", w.program.c_str(),
                      w.stage.c_str(), progress, static_cast<long long>(w.limit.count()));
    // write(2), not stdio: the stuck thread may hold stdio's lock.
    if (n > 0) (void)!write(2, text, size_t(std::min(n, int(sizeof(text)) - 1)));
    _exit(kStuckExitCode);
}

void watch() {
    Watchdog& w = watchdog();
    std::unique_lock lock(w.mutex);
    while (!w.stop) {
        w.wake.wait_for(lock, std::chrono::milliseconds(100));
        if (!w.stop && Clock::now() - w.since > w.limit) reportStuck(w);
    }
}

} // namespace

void startWatchdog(const char* program, uint32_t limitSeconds) {
    Watchdog& w = watchdog();
    {
        std::lock_guard lock(w.mutex);
        w.program = program;
        w.limit = std::chrono::seconds(limitSeconds);
        w.since = Clock::now();
        w.stop = false;
    }
    w.thread = std::thread(watch);
}

void enterStage(const std::string& stage, bool announce) {
    Watchdog& w = watchdog();
    {
        std::lock_guard lock(w.mutex);
        w.stage = stage;
        w.since = Clock::now();
        w.of = 0;
        w.done = 0;
    }
    if (announce) std::fprintf(stderr, "%s: %s\n", w.program.c_str(), stage.c_str());
}

void noteProgress(uint32_t done, uint32_t of) {
    Watchdog& w = watchdog();
    w.done.store(done, std::memory_order_relaxed);
    w.of.store(of, std::memory_order_relaxed);
}

void stopWatchdog() {
    Watchdog& w = watchdog();
    {
        std::lock_guard lock(w.mutex);
        w.stop = true;
    }
    w.wake.notify_all();
    if (w.thread.joinable()) w.thread.join();
}

} // namespace estuary::bench
