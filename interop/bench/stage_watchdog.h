// A watchdog for a benchmark that must end in bounded time whatever a driver does. The program
// names each stage as it enters it (printed to stderr, which is unbuffered, so a log shows where a
// run stopped); when one stage lasts longer than the limit, the watchdog's thread writes
// "PROGRAM: stuck in STAGE after N s" to stderr and ends the process with kStuckExitCode, running
// no destructors: a driver call that never returns cannot be unwound.
#pragma once

#include <cstdint>
#include <string>

namespace estuary::bench {

constexpr int kStuckExitCode = 4;

void startWatchdog(const char* program, uint32_t limitSeconds);
// announce: also print the stage to stderr (the coarse ones; the per-repeat ones stay quiet).
void enterStage(const std::string& stage, bool announce = true);
// Progress within the stage (an atomic store: cheap enough for every alternation).
void noteProgress(uint32_t done, uint32_t of);
void stopWatchdog();

} // namespace estuary::bench
