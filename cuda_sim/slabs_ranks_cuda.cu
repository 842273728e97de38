// The ranked split run on GPUs (slabs_ranks_cuda.h). Runtime API and NCCL only: each slab is the
// simulation's own object. Without nvcc this file compiles as C++ and only says that the build
// has no CUDA.
#include "errors.h"
#include "rank_commands.h"

#ifndef __CUDACC__
namespace estuary::sim {

std::unique_ptr<RankPart> createCudaRankPart(const SimDefinition&, const Command&, ranks::Links&) {
    throw unsupported("rank 0 runs the CUDA backend, and this rank's estuary was built without "
                      "CUDA; run every rank with --backend cpu, or the same CUDA build");
}

} // namespace estuary::sim
#else
#include "cuda_check.h"
#include "links.h"
#include "nccl_api.h"
#include "slabs_ranks_cuda.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>

namespace estuary::sim {
namespace {

// This rank's slab of a run on its GPU, and the job's communicator (one slab per rank, so slab
// i is rank i's and NCCL peer i).
class DeviceSlab {
  public:
    DeviceSlab(const SimDefinition& def, const Command& start, const ncclUniqueId& id,
               uint32_t rank, uint32_t ranks)
        : whole_{start.width, start.height, start.depth},
          plan_(planSlabs(whole_, start.slabs, start.maxHalo)), planeCells_(slabPlaneCells(whole_)),
          copies_(haloCopies(plan_)), rank_(rank) {
        if (!def.splittable || !def.createCuda)
            throw usageError(def.name + " cannot be split into slabs on GPUs");
        if (start.slabs != ranks)
            throw usageError("a job of " + std::to_string(ranks) +
                             " ranks on GPUs runs one slab "
                             "per rank, not " +
                             std::to_string(start.slabs));
        ncclCheck(nccl().commInitRank(&comm_, int(ranks), id, int(rank)), "ncclCommInitRank");
        try {
            slab_ = def.createCuda(withSlabPlanes(whole_, plan_.count[rank] + 2 * plan_.halo));
        } catch (...) {
            (void)nccl().commDestroy(comm_);
            throw;
        }
    }
    ~DeviceSlab() {
        slab_.reset();
        if (comm_) (void)nccl().commDestroy(comm_);
    }
    DeviceSlab(const DeviceSlab&) = delete;
    DeviceSlab& operator=(const DeviceSlab&) = delete;

    void reset(uint64_t seed, cudaStream_t stream) {
        slab_->resetAsPart(seed, whole_, slabLocalToWhole(plan_, rank_, 0), stream);
    }

    void step(const ParamValues& params, int steps, cudaStream_t stream) {
        while (steps > 0) {
            const int now = std::min(steps, int(plan_.halo));
            exchange(stream);
            slab_->step(params, now, stream);
            steps -= now;
        }
    }

    // The own planes of the fields in `mask` to rank 0 (gather) or back (scatter); `whole` is
    // rank 0's object of the whole grid (nullptr on the others).
    void move(uint32_t mask, const SlabFields* whole, bool gather, cudaStream_t stream) {
        const SlabFields mine = slab_->slabFields();
        Group group;
        for (size_t i = 0; i < plan_.count.size(); ++i) {
            if (rank_ != 0 && i != rank_) continue;
            const size_t count = size_t(plan_.count[i]) * planeCells_;
            for (uint32_t f = 0; f < 32; ++f) {
                if (!(mask >> f & 1)) continue;
                if (rank_ != 0) {
                    float* own = mine.fields.at(f) + plan_.halo * planeCells_;
                    group.open();
                    if (gather)
                        ncclCheck(nccl().send(own, count, ncclFloat, 0, comm_, stream), "ncclSend");
                    else
                        ncclCheck(nccl().recv(own, count, ncclFloat, 0, comm_, stream), "ncclRecv");
                    continue;
                }
                float* there = whole->fields.at(f) + plan_.first[i] * planeCells_;
                if (i == 0) {
                    float* own = mine.fields.at(f) + plan_.halo * planeCells_;
                    CUDA_CHECK(cudaMemcpyAsync(gather ? there : own, gather ? own : there,
                                               count * sizeof(float), cudaMemcpyDeviceToDevice,
                                               stream));
                    continue;
                }
                group.open();
                if (gather)
                    ncclCheck(nccl().recv(there, count, ncclFloat, int(i), comm_, stream),
                              "ncclRecv");
                else
                    ncclCheck(nccl().send(there, count, ncclFloat, int(i), comm_, stream),
                              "ncclSend");
            }
        }
        group.close();
    }

  private:
    // One NCCL group, closed also when a call inside it throws.
    struct Group {
        bool opened = false;
        void open() {
            if (!opened) ncclCheck(nccl().groupStart(), "ncclGroupStart");
            opened = true;
        }
        void close() {
            if (opened) {
                opened = false;
                ncclCheck(nccl().groupEnd(), "ncclGroupEnd");
            }
        }
        ~Group() {
            if (opened) (void)nccl().groupEnd();
        }
    };

    // haloCopies in order, field by field, as sends and receives of this rank (every rank
    // issues its part of the list in the list's order, which is how NCCL pairs them).
    void exchange(cudaStream_t stream) {
        const SlabFields mine = slab_->slabFields();
        const size_t count = size_t(plan_.halo) * planeCells_;
        Group group;
        for (const HaloCopy& c : copies_) {
            if (c.from != rank_ && c.to != rank_) continue;
            for (float* field : mine.fields) {
                group.open();
                if (c.from == rank_)
                    ncclCheck(nccl().send(field + c.fromPlane * planeCells_, count, ncclFloat,
                                          int(c.to), comm_, stream),
                              "ncclSend");
                if (c.to == rank_)
                    ncclCheck(nccl().recv(field + c.toPlane * planeCells_, count, ncclFloat,
                                          int(c.from), comm_, stream),
                              "ncclRecv");
            }
        }
        group.close();
    }

    GridSize whole_;
    SlabPlan plan_;
    size_t planeCells_;
    std::vector<HaloCopy> copies_;
    uint32_t rank_;
    ncclComm_t comm_ = nullptr;
    std::unique_ptr<CudaSimulation> slab_;
};

uint32_t maskOf(const std::vector<uint32_t>& fields) {
    uint32_t mask = 0;
    for (uint32_t f : fields)
        mask |= 1u << f;
    return mask;
}

ncclUniqueId idOf(const Command& c) {
    ncclUniqueId id{};
    static_assert(sizeof(id.internal) == sizeof(c.ncclId));
    std::memcpy(id.internal, c.ncclId, sizeof(id.internal));
    return id;
}

// Rank 0's object (createRankedCuda).
class RankedCuda final : public CudaSimulation {
  public:
    RankedCuda(const SimDefinition& def, const GridSize& whole, ranks::Links& links,
               uint32_t maxHalo)
        : links_(links), start_(makeStart(def, whole, links.size(), maxHalo)) {
        // Every rank says it has its GPU before all join the communicator: a rank that cannot
        // join exits and closes its link instead of leaving the others waiting in NCCL.
        broadcast(links_, start_);
        for (uint32_t r = 1; r < links_.size(); ++r) {
            uint32_t ready = 0;
            links_.receive(r, &ready, sizeof(ready));
        }
        part_ = std::make_unique<DeviceSlab>(def, start_, idOf(start_), 0, links.size());
        wholeSim_ = def.createCuda(whole);
        allMask_ = (1u << wholeSim_->slabFields().fields.size()) - 1;
    }
    ~RankedCuda() override {
        try {
            broadcast(links_, command(CommandKind::End));
        } catch (const Error&) { // a closed link was reported where it closed
        }
    }

    void reset(uint64_t seed, cudaStream_t stream) override {
        Command c = command(CommandKind::Reset);
        c.seed = seed;
        broadcast(links_, c);
        part_->reset(seed, stream);
    }

    void step(const ParamValues& params, int steps, cudaStream_t stream) override {
        Command c = command(CommandKind::Step);
        c.steps = steps;
        putParams(c, params);
        broadcast(links_, c);
        part_->step(params, steps, stream);
    }

    // Every frame sends its commands, so it is never replayed from a graph (replayState stays
    // nullopt).
    void writeOutputs(const DeviceTargets& targets, cudaStream_t stream) override {
        gather(maskOf(wholeSim_->slabFields().shown), stream);
        wholeSim_->writeOutputs(targets, stream);
    }

    void brush(const Brush& brush, const ParamValues& params, cudaStream_t stream) override {
        gather(allMask_, stream);
        wholeSim_->brush(brush, params, stream);
        Command c = command(CommandKind::Scatter);
        c.fields = allMask_;
        broadcast(links_, c);
        const SlabFields whole = wholeSim_->slabFields();
        part_->move(allMask_, &whole, false, stream);
    }

  private:
    static Command makeStart(const SimDefinition& def, const GridSize& whole, uint32_t ranks,
                             uint32_t maxHalo) {
        static uint32_t runs = 0;
        Command c;
        c.kind = CommandKind::Start;
        c.run = 0x10000 + ++runs; // apart from the host runs' numbers
        c.backend = RankBackend::Cuda;
        c.width = whole.width;
        c.height = whole.height;
        c.depth = whole.depth;
        c.slabs = ranks;
        c.maxHalo = maxHalo;
        if (def.name.size() >= sizeof(c.simulation))
            throw usageError("a ranked run's simulation name is at most 63 characters");
        std::memcpy(c.simulation, def.name.c_str(), def.name.size());
        (void)planSlabs(whole, ranks, maxHalo); // a bad plan fails here, before any rank starts
        ncclUniqueId id{};
        ncclCheck(nccl().getUniqueId(&id), "ncclGetUniqueId");
        std::memcpy(c.ncclId, id.internal, sizeof(c.ncclId));
        return c;
    }

    Command command(CommandKind kind) const {
        Command c;
        c.kind = kind;
        c.run = start_.run;
        return c;
    }

    void gather(uint32_t mask, cudaStream_t stream) {
        Command c = command(CommandKind::Gather);
        c.fields = mask;
        broadcast(links_, c);
        const SlabFields whole = wholeSim_->slabFields();
        part_->move(mask, &whole, true, stream);
    }

    ranks::Links& links_;
    Command start_;
    std::unique_ptr<DeviceSlab> part_;
    std::unique_ptr<CudaSimulation> wholeSim_; // the gathered planes, for the outputs
    uint32_t allMask_ = 0;
};

// A rank above 0's part: its local rank's GPU, its own stream, each command finished before
// the next is taken.
class DevicePart final : public RankPart {
  public:
    DevicePart(const SimDefinition& def, const Command& start, ranks::Links& links) {
        int present = 0;
        CUDA_CHECK(cudaGetDeviceCount(&present));
        const uint32_t local = links.job().localRank;
        if (int64_t(local) >= present)
            throw unsupported("rank " + std::to_string(links.rank()) + " (local rank " +
                              std::to_string(local) + ") has no GPU of its own: this machine has " +
                              std::to_string(present) + " CUDA device(s)");
        CUDA_CHECK(cudaSetDevice(int(local)));
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        const uint32_t ready = 1;
        links.send(0, &ready, sizeof(ready));
        try {
            part_ =
                std::make_unique<DeviceSlab>(def, start, idOf(start), links.rank(), links.size());
        } catch (...) {
            (void)cudaStreamDestroy(stream_);
            throw;
        }
    }
    ~DevicePart() override {
        (void)cudaStreamSynchronize(stream_);
        part_.reset();
        (void)cudaStreamDestroy(stream_);
    }
    DevicePart(const DevicePart&) = delete;
    DevicePart& operator=(const DevicePart&) = delete;

    void reset(uint64_t seed) override {
        part_->reset(seed, stream_);
        finish();
    }
    void step(const ParamValues& params, int steps) override {
        part_->step(params, steps, stream_);
        finish();
    }
    void gather(uint32_t fields) override {
        part_->move(fields, nullptr, true, stream_);
        finish();
    }
    void scatter(uint32_t fields) override {
        part_->move(fields, nullptr, false, stream_);
        finish();
    }

  private:
    void finish() { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

    cudaStream_t stream_ = nullptr;
    std::unique_ptr<DeviceSlab> part_;
};

} // namespace

std::unique_ptr<CudaSimulation> createRankedCuda(const SimDefinition& def, const GridSize& whole,
                                                 ranks::Links& links, uint32_t maxHalo) {
    return std::make_unique<RankedCuda>(def, whole, links, maxHalo);
}

std::unique_ptr<RankPart> createCudaRankPart(const SimDefinition& def, const Command& start,
                                             ranks::Links& links) {
    return std::make_unique<DevicePart>(def, start, links);
}

} // namespace estuary::sim
#endif
