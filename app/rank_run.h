// One process per slab (docs/SCALING.md): when the launcher's environment describes a job of
// several ranks (ranks/job.h), every rank runs the same command line. Rank 0 runs the app as
// usual (window, headless picture, benchmark) with the chosen simulation split over the ranks
// (sim::createRankedCpu / createRankedCuda); the others open no window and no Vulkan device and
// follow rank 0's commands (sim::serveRank) until it ends the job.
#pragma once

#include "job.h"
#include "options.h"

#include <functional>
#include <string>

namespace estuary {

namespace ranks {
class Links;
}

// The job's links on rank 0 while it runs; nullptr in a plain run.
ranks::Links* rankLinks();

// Runs this process's part of the job: bootstraps the links (the fingerprint of `commandLine`
// must be the same on every rank), then on rank 0 `lead()` and, when it returns 0, ends the job;
// on the others serves rank 0. Returns the exit code; throws estuary::Error.
int runRank(const Options& options, const ranks::Job& job, const std::string& commandLine,
            const std::function<int()>& lead);

} // namespace estuary
