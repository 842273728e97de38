// The split run (slabs.h) over the ranks of a job, one process each (ranks/links.h): slab i of
// the same planSlabs plan lives on rank i * ranks / slabs, so each rank steps a contiguous block
// of slabs with exactly the arithmetic of the one-process split run, and the result is the same
// bit for bit. Rank 0 also writes the outputs and draws, so its slabs hold a smaller part of the
// planes (planRankSlabs; the in-process split over GPUs does the same). Rank 0 runs the app: its
// simulation object (createRankedCpu, or createRankedCuda in slabs_ranks_cuda.h) sends every call
// as a fixed-size command to the other ranks, which follow in serveRank. Halos move between
// neighbouring ranks in haloCopies' order (host: the TCP links; CUDA: ncclSend/ncclRecv); the
// planes the outputs need are gathered onto rank 0 the same way.
#pragma once

#include "slabs.h"

#include <cstdint>
#include <memory>
#include <string_view>

namespace estuary::ranks {
class Links;
}

namespace estuary::sim {

// The rank holding slab `slab` of `slabs`.
inline uint32_t rankOfSlab(size_t slab, size_t slabs, uint32_t ranks) {
    return uint32_t(slab * ranks / slabs);
}

// Rank 0's part of the planes: `displayShare`, or where it is 0 the default for `ranks` ranks
// (defaultDisplayShare: ranks gather) (a job of one rank: all). Throws usageError unless the
// result is in (0, 1) (or 1 for one rank).
double resolveDisplayShare(double displayShare, uint32_t ranks);

// `slabs` slabs over `ranks` ranks (slab i on rankOfSlab(i)): rank 0's slabs share `displayShare`
// (resolved) of the planes evenly, the others the rest; one rank: planSlabs' even cut. Every
// rank derives its plan from the start command with this function, so all hold the same plan.
// Throws usageError as planSlabs does (a share of fewer than 2 planes names the slab).
SlabPlan planRankSlabs(const GridSize& whole, uint32_t slabs, uint32_t ranks, double displayShare,
                       uint32_t maxHalo = kDefaultSlabHalo);

// Rank 0's simulation object: `slabs` (at least the job's size) slabs over the job's ranks, rank 0
// holding `displayShare` of the planes (0: the default); the others build their part when they
// receive its start. Throws usageError (the plan, the share, too few slabs) or runtimeError (a
// link).
std::unique_ptr<CpuSimulation> createRankedCpu(const SimDefinition& def, const GridSize& whole,
                                               uint32_t slabs, ranks::Links& links,
                                               uint32_t maxHalo = kDefaultSlabHalo,
                                               double displayShare = 0);

// Ranks above 0: follow rank 0's commands until it ends the job (returns what was done) or its
// link closes (throws runtimeError). `find` gives the simulation a start names (nullptr: none).
struct ServedRank {
    uint64_t runs = 0, steps = 0, gathers = 0;
};
using FindSimulation = const SimDefinition* (*)(std::string_view name);
ServedRank serveRank(ranks::Links& links, FindSimulation find);

// Rank 0, when the job succeeded: the other ranks return from serveRank.
void endRanks(ranks::Links& links);

// Whether GPU work of a ranked run was left unfinished (a rank gone while NCCL waited for it): the
// process should end with _exit, as the exit handlers may wait for the kernels that never end.
bool rankGpuWorkAbandoned();

} // namespace estuary::sim
