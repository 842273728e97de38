// The ranked split run on GPUs (slabs_ranks_cuda.h): one slab per rank on its local GPU, halos
// and gathers by ncclSend/ncclRecv over a communicator of the job's ranks, its unique id sent
// from rank 0 in the run's start command. Without nvcc this file compiles as C++ and only says
// that the build has no CUDA.
#include "rank_commands.h"
#include "errors.h"

#ifndef __CUDACC__
namespace estuary::sim {

std::unique_ptr<RankPart> createCudaRankPart(const SimDefinition&, const Command&, ranks::Links&) {
    throw unsupported("rank 0 runs the CUDA backend, and this rank's estuary was built without "
                      "CUDA; run every rank with --backend cpu, or the same CUDA build");
}

} // namespace estuary::sim
#else
#endif
