// The ranked split run on GPUs (slabs_ranks.h): one slab per rank, each on its rank's GPU (rank 0:
// the current device, the one Vulkan draws with; the others: their local rank's device), halos
// by ncclSend/ncclRecv over a communicator of the job's ranks and the frames' gathers to rank 0
// over a second one, whose unique ids rank 0 sends in the run's start command (NCCL loaded at run
// time, NVLink multicast off). Every rank only enqueues: each slab steps on a stream of its own,
// and a frame's gather overlaps the next frame's steps (slabs_ranks_cuda.cu says how).
#pragma once

#include "cuda_simulation.h"
#include "slabs_ranks.h"

#include <memory>

namespace estuary::sim {

// Rank 0's simulation object, holding `displayShare` of the planes (0: the default,
// planRankSlabs). Throws usageError (the plan, the share), unsupported (NCCL missing) or
// runtimeError (a link, NCCL).
std::unique_ptr<CudaSimulation> createRankedCuda(const SimDefinition& def, const GridSize& whole,
                                                 ranks::Links& links,
                                                 uint32_t maxHalo = kDefaultSlabHalo,
                                                 double displayShare = 0);

} // namespace estuary::sim
