// The ranked split run on GPUs (slabs_ranks.h): one slab per rank, each on its rank's GPU (rank 0:
// the current device, the one Vulkan draws with; the others: their local rank's device), halos
// and the gather to rank 0 by ncclSend/ncclRecv over a communicator of the job's ranks whose
// unique id rank 0 sends in the run's start command (NCCL loaded at run time, NVLink multicast
// off). Every call only enqueues on the caller's stream; the other ranks finish each command's
// work on their own stream before taking the next.
#pragma once

#include "cuda_simulation.h"
#include "slabs_ranks.h"

#include <memory>

namespace estuary::sim {

// Rank 0's simulation object. Throws usageError (the plan), unsupported (NCCL missing) or
// runtimeError (a link, NCCL).
std::unique_ptr<CudaSimulation> createRankedCuda(const SimDefinition& def, const GridSize& whole,
                                                 ranks::Links& links,
                                                 uint32_t maxHalo = kDefaultSlabHalo);

} // namespace estuary::sim
