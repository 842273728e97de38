// SIGINT and SIGTERM as a request to stop: the handlers only record the signal, and the headless
// run, the benchmark and the window loop look at it between frames, finish what was asked (the
// screenshot of the last frame drawn, the report of the frames measured so far) and exit with
// 128 + the signal's number (130 for SIGINT, 143 for SIGTERM). The handler is installed with
// SA_RESETHAND: a second signal of the same kind ends the process at once, the default action.
#pragma once

namespace estuary {

// Installs both handlers, and ignores SIGPIPE so that a closed pipe or FIFO is a write error
// naming the file rather than a silent death.
void installStopHandlers();

// The first stop signal received since start (or the last clearStopRequest), 0 for none. Safe to
// call every frame: one relaxed atomic load.
int stopSignal();

// The exit code for a run stopped by `signal`: 128 + its number.
inline int stoppedExitCode(int signal) {
    return 128 + signal;
}

// "SIGINT" or "SIGTERM" ("a signal" for anything else).
const char* stopSignalName(int signal);

// Tests: forget a received signal.
void clearStopRequest();

} // namespace estuary
