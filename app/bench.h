// `estuary --bench`: the same simulation and renderer timed per synchronization strategy
// (pipelined, serialized, host-copy), reported as JSON/CSV with ratios between modes. The report
// and the CSV are written independently: one failing does not stop the other.
#pragma once

#include "options.h"
#include "run_outputs.h"

namespace estuary {

int runBench(const Options& options, RunOutputs& outputs);

} // namespace estuary
