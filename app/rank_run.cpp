#include "rank_run.h"
#include "errors.h"
#include "links.h"
#include "simulations.h"
#include "slabs_ranks.h"

#include <cstdio>
#include <unistd.h>

namespace estuary {
namespace {

ranks::Links* gLinks = nullptr;

const sim::SimDefinition* findByName(std::string_view name) {
    return name.empty() ? nullptr : findSimulation(name);
}

void checkOptions(const Options& o, const ranks::Job& job) {
    if (o.gpus > 1)
        throw usageError("--gpus " + std::to_string(o.gpus) + " in a job of " +
                         std::to_string(job.size) +
                         " ranks: each rank uses one GPU (its local "
                         "rank's); leave --gpus out");
    const sim::SimDefinition* def = findSimulation(o.simulation);
    if (def && !def->splittable)
        throw usageError("a job of " + std::to_string(job.size) +
                         " ranks splits a stencil "
                         "simulation's grid; " +
                         def->name + " cannot be split");
}

// GPU work of the run was left waiting on a rank that is gone: the exit handlers could wait for
// its NCCL kernels, which never end.
[[noreturn]] void endAbandoned(const std::string& why, int code) {
    std::fprintf(stderr, "estuary: error: %s (GPU work left unfinished)\n", why.c_str());
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(code);
}

} // namespace

ranks::Links* rankLinks() {
    return gLinks;
}

int runRank(const Options& options, const ranks::Job& job, const std::string& commandLine,
            const std::function<int()>& lead) {
    checkOptions(options, job);
    std::printf("estuary: rank %u of %u (local rank %u, started by %s), rendezvous %s\n", job.rank,
                job.size, job.localRank, job.launcher.c_str(),
                ranks::describe(job.rendezvous).c_str());
    std::fflush(stdout);
    ranks::Links links = ranks::connectRanks(job, ranks::fingerprintOf(commandLine));
    std::printf("estuary: rank %u linked to the job's %u ranks\n", job.rank, job.size);
    std::fflush(stdout);
    if (job.rank != 0) {
        sim::ServedRank served;
        try {
            served = sim::serveRank(links, findByName);
        } catch (const Error& e) {
            if (!sim::rankGpuWorkAbandoned()) throw;
            endAbandoned(e.what(), int(exitCode(e)));
        }
        std::printf("estuary: rank %u done: %llu run(s), %llu steps, %llu gathers\n", job.rank,
                    static_cast<unsigned long long>(served.runs),
                    static_cast<unsigned long long>(served.steps),
                    static_cast<unsigned long long>(served.gathers));
        return 0;
    }
    gLinks = &links;
    struct Clear {
        ~Clear() { gLinks = nullptr; }
    } clear;
    int code = 1;
    try {
        code = lead();
    } catch (const Error& e) {
        if (!sim::rankGpuWorkAbandoned()) throw;
        endAbandoned(e.what(), int(exitCode(e)));
    }
    if (sim::rankGpuWorkAbandoned())
        endAbandoned("a rank's GPU work did not finish", code ? code : 1);
    // A failed rank 0 just closes the links: the others exit naming it.
    if (code == 0 || code >= 128) sim::endRanks(links);
    return code;
}

} // namespace estuary
