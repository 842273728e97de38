// `estuary --bench`: the same simulation and renderer timed per synchronization strategy
// (pipelined, serialized, host-copy), reported as JSON/CSV with ratios between modes.
#pragma once

#include "options.h"

namespace estuary {

int runBench(const Options& options);

} // namespace estuary
