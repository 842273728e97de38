// What rank 0 sends the other ranks of a ranked split run (slabs_ranks.h), one fixed-size
// command per call, and the part of a run each rank holds. Internal to cuda_sim: the host part
// (slabs_ranks.cpp) and the CUDA part (slabs_ranks_cuda.cu) share it. The ranks run the same
// binary, so the command travels as its bytes. Rank 0 never waits for an answer: a command is
// written into the link's socket buffer and the frame goes on (a rank that does not read blocks
// rank 0 only once that buffer is full, and then for the job's timeout at most).
#pragma once

#include "simulation.h"
#include "slabs.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace estuary::ranks {
class Links;
}

namespace estuary::sim {

inline constexpr uint32_t kCommandMagic = 0x45534d44; // "ESMD"
inline constexpr uint32_t kMaxCommandParams = 64;

// Gather: the fields' own planes to rank 0, after everything before (a brush stroke's). Shown:
// the frame's gather of the shown fields, which the next steps need not wait for (slabs_ranks.h).
enum class CommandKind : uint32_t { Start = 1, End, Reset, Step, Gather, Scatter, Stop, Shown };
enum class RankBackend : uint32_t { Cpu = 0, Cuda = 1 };

struct Command {
    uint32_t magic = kCommandMagic;
    CommandKind kind = CommandKind::Stop;
    uint32_t run = 0; // which run of the job (a window may start the next before ending this)
    RankBackend backend = RankBackend::Cpu;
    uint64_t seed = 0;
    int32_t steps = 0;
    uint32_t paramCount = 0;
    float params[kMaxCommandParams] = {};
    uint32_t width = 0, height = 0, depth = 1, slabs = 0, maxHalo = 0;
    uint32_t fields = 0; // Gather, Scatter, Shown: a bit per field
    char simulation[64] = {};
    uint8_t ncclId[128] = {};       // Start of a CUDA run: the halos' communicator (ncclUniqueId)
    uint8_t gatherNcclId[128] = {}; // ... and the frame gathers' own communicator
    double displayShare = 0;        // Start: rank 0's part of the planes, resolved (planRankSlabs)
};

// A run's start: the plan's inputs, the simulation's name (usageError above 63 characters) and a
// run number unique in this process.
Command startCommand(const SimDefinition& def, const GridSize& whole, uint32_t slabs,
                     uint32_t maxHalo, double displayShare, RankBackend backend);
// The plan every rank of the run derives from its start command.
SlabPlan planOf(const Command& start, uint32_t ranks);

inline uint32_t maskOf(const std::vector<uint32_t>& fields) {
    uint32_t mask = 0;
    for (uint32_t f : fields)
        mask |= 1u << f;
    return mask;
}

// Sends `c` to every other rank.
void broadcast(ranks::Links& links, const Command& c);
// The parameters into a command (at most kMaxCommandParams) and back.
void putParams(Command& c, const ParamValues& params);
ParamValues paramsOf(const Command& c);

// One rank's part of a run, on a rank above 0. Gather sends its slabs' own planes of the fields
// to rank 0, Scatter receives them back; gatherShown is the frame's gather of the shown fields.
class RankPart {
  public:
    virtual ~RankPart() = default;
    virtual void reset(uint64_t seed) = 0;
    virtual void step(const ParamValues& params, int steps) = 0;
    virtual void gather(uint32_t fields) = 0;
    virtual void gatherShown(uint32_t fields) { gather(fields); }
    virtual void scatter(uint32_t fields) = 0;
};

// Marks this process's GPU work of a ranked run as left unfinished (rankGpuWorkAbandoned).
void abandonRankGpuWork();

// The CUDA part of a rank above 0 (slabs_ranks_cuda.cu); unsupported in a build without CUDA.
std::unique_ptr<RankPart> createCudaRankPart(const SimDefinition& def, const Command& start,
                                             ranks::Links& links);

} // namespace estuary::sim
