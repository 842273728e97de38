// SIGINT, SIGTERM and SIGHUP (a closed terminal) as a request to stop: the handlers only record
// the first signal, and the headless run, the benchmark and the window loop look at it between
// frames, finish what was asked (the screenshot of the last frame drawn, the report of the frames
// measured so far) and exit with 128 + the signal's number (130 SIGINT, 143 SIGTERM, 129 SIGHUP).
// Repeated signals still mean "stop" (`timeout` sends TERM twice, to the process and its group);
// only a SIGINT more than kHardStopGraceNs after the first request ends the run at once, saying
// that what was asked is not written. The watchdog bounds a stop that is not honoured.
#pragma once

#include <cstdint>

namespace estuary {

// A second Ctrl-C this long after the first stop request is deliberate.
constexpr int64_t kHardStopGraceNs = 1'000'000'000;

// Installs the handlers, and ignores SIGPIPE and SIGXFSZ so that a closed pipe or FIFO (EPIPE) and
// a file-size limit, ulimit -f (EFBIG), are write errors naming the file rather than a silent
// death.
void installStopHandlers();

// A file the hard stop (a second Ctrl-C) deletes before ending the process: the recording's
// temporary "<path>.part", which would otherwise be left behind. Empty: none. The path is copied
// into storage the handler reads (at most 4095 bytes; a longer one is not registered). Call from
// the main thread, not while a signal may be handled concurrently with a change (set it once
// before the loop, clear it after the recording stopped).
void setHardStopRemoval(const char* path);

// The first stop signal received since start (or the last clearStopRequest), 0 for none. Safe to
// call every frame: one relaxed atomic load.
int stopSignal();

// The exit code for a run stopped by `signal`: 128 + its number.
inline int stoppedExitCode(int signal) {
    return 128 + signal;
}

// "SIGINT", "SIGTERM" or "SIGHUP" ("a signal" for anything else).
const char* stopSignalName(int signal);

// Tests: forget a received signal.
void clearStopRequest();

} // namespace estuary
