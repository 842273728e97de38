// The ranked split run on GPUs (slabs_ranks_cuda.h). Runtime API and NCCL only: each slab is the
// simulation's own object. Without nvcc this file compiles as C++ and only says that the build
// has no CUDA.
//
// Streams and communicators, on every rank: the slab steps on a stream of its own, exchanging
// halos (and a brush stroke's gather and scatter) over the run's first communicator; the frame's
// gather of the shown fields runs on a second stream over a second communicator, so the next
// steps never wait for it. Rank k > 0 copies its shown planes into a snapshot on the slab's stream
// (a local copy at HBM speed) and sends the snapshot on its gather stream; the snapshot is
// rewritten only once its last send is done. Rank 0 receives into its whole-grid object on its
// gather stream once the last outputs written from that object are, and the caller's stream (the
// frame's) waits for the receives and rank 0's own planes before writing the outputs.
//
// Why this cannot deadlock across ranks: NCCL pairs the operations of one communicator in the
// order each rank issues them. Every rank issues in command order: rank 0 broadcasts a command
// before enqueuing its own part, the others enqueue on receipt, one command after the other; so
// both communicators see the same sequence on every rank (halos: Step, Gather, Scatter; gathers:
// Shown), and within a group the calls follow haloCopies' list or ascending rank and field. The
// waits between streams point only to earlier frames (a snapshot waits for the previous send,
// which waits for rank 0's previous receive, which waits for the output write before it), so
// they form no cycle. The two communicators' kernels may run at once on a GPU (each is a few
// blocks, which fit beside each other: what NCCL asks of concurrent communicators); and were a GPU
// to run them one at a time in the order they were issued, that order is the same on every rank.
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
#include <chrono>
#include <cstring>
#include <exception>
#include <thread>
#include <utility>

namespace estuary::sim {
namespace {

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

ncclUniqueId idOf(const uint8_t (&bytes)[128]) {
    ncclUniqueId id{};
    static_assert(sizeof(id.internal) == sizeof(bytes));
    std::memcpy(id.internal, bytes, sizeof(id.internal));
    return id;
}

// The fields of `mask`, ascending: the order every rank moves them in.
std::vector<uint32_t> fieldsOf(uint32_t mask) {
    std::vector<uint32_t> fields;
    for (uint32_t f = 0; f < 32; ++f)
        if (mask >> f & 1) fields.push_back(f);
    return fields;
}

// Whether `stream` finished within `limit`. A rank that died mid-exchange leaves the NCCL kernels
// of the others waiting for ever, so no wait here is unbounded.
bool finishedWithin(cudaStream_t stream, std::chrono::milliseconds limit) {
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        const cudaError_t r = cudaStreamQuery(stream);
        if (r == cudaSuccess) return true;
        if (r != cudaErrorNotReady) return false;
        if (std::chrono::steady_clock::now() - start > limit) return false;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
}

// This rank's slab of a run on its GPU (the current device), its two streams and the run's two
// communicators (one slab per rank, so slab i is rank i's and NCCL peer i).
class DeviceSlab {
  public:
    DeviceSlab(const SimDefinition& def, const Command& start, uint32_t rank, uint32_t ranks,
               std::chrono::milliseconds timeout)
        : whole_{start.width, start.height, start.depth}, plan_(planOf(start, ranks)),
          planeCells_(slabPlaneCells(whole_)), copies_(haloCopies(plan_)), rank_(rank),
          timeout_(timeout) {
        if (!def.splittable || !def.createCuda)
            throw usageError(def.name + " cannot be split into slabs on GPUs");
        if (start.slabs != ranks)
            throw usageError("a job of " + std::to_string(ranks) +
                             " ranks on GPUs runs one slab per rank, not " +
                             std::to_string(start.slabs));
        try {
            build(def, start, ranks);
        } catch (...) {
            release(true);
            throw;
        }
    }
    ~DeviceSlab() { release(std::uncaught_exceptions() > 0); }
    DeviceSlab(const DeviceSlab&) = delete;
    DeviceSlab& operator=(const DeviceSlab&) = delete;

    cudaStream_t stream() const { return sim_; }

    void reset(uint64_t seed) {
        halosFresh_ = false;
        slab_->resetAsPart(seed, whole_, slabLocalToWhole(plan_, rank_, 0), sim_);
    }

    // Each pass's halos for the next go out right after it (slabTuning().eagerHalos), ahead of
    // the frame's snapshot; every rank follows the same commands, so all skip the same exchanges.
    void step(const ParamValues& params, int steps) {
        while (steps > 0) {
            const int now = std::min(steps, int(plan_.halo));
            if (!halosFresh_) exchange();
            halosFresh_ = false;
            slab_->step(params, now, sim_);
            steps -= now;
            if (slabTuning().eagerHalos) {
                exchange();
                halosFresh_ = true;
            }
        }
    }

    // A brush stroke's move, on the slab's stream and the halos' communicator, after all before
    // it there: the own planes of the fields in `mask` to rank 0 (gather) or back (scatter);
    // `whole` is rank 0's object of the whole grid (nullptr on the others).
    void move(uint32_t mask, const SlabFields* whole, bool gather) {
        if (!gather) halosFresh_ = false; // a scatter rewrites the own planes the halos copy
        const SlabFields mine = slab_->slabFields();
        Group group;
        for (size_t i = 0; i < plan_.count.size(); ++i) {
            if (rank_ != 0 && i != rank_) continue;
            const size_t count = size_t(plan_.count[i]) * planeCells_;
            for (uint32_t f : fieldsOf(mask)) {
                float* own = mine.fields.at(f) + plan_.halo * planeCells_;
                if (rank_ != 0) {
                    group.open();
                    if (gather)
                        ncclCheck(nccl().send(own, count, ncclFloat, 0, comm_, sim_), "ncclSend");
                    else
                        ncclCheck(nccl().recv(own, count, ncclFloat, 0, comm_, sim_), "ncclRecv");
                    continue;
                }
                float* there = whole->fields.at(f) + plan_.first[i] * planeCells_;
                if (i == 0) {
                    CUDA_CHECK(cudaMemcpyAsync(gather ? there : own, gather ? own : there,
                                               count * sizeof(float), cudaMemcpyDeviceToDevice,
                                               sim_));
                    continue;
                }
                group.open();
                if (gather)
                    ncclCheck(nccl().recv(there, count, ncclFloat, int(i), comm_, sim_),
                              "ncclRecv");
                else
                    ncclCheck(nccl().send(there, count, ncclFloat, int(i), comm_, sim_),
                              "ncclSend");
            }
        }
        group.close();
    }

    // Rank k > 0, a frame's gather: the shown fields of `mask` into the snapshot on the slab's
    // stream once its last send is done, then sent to rank 0 on the gather stream.
    void sendShown(uint32_t mask) {
        const SlabFields mine = slab_->slabFields();
        const size_t count = size_t(plan_.count[rank_]) * planeCells_;
        const std::vector<uint32_t> fields = fieldsOf(mask);
        CUDA_CHECK(cudaStreamWaitEvent(sim_, sent_, 0));
        for (uint32_t f : fields)
            CUDA_CHECK(cudaMemcpyAsync(snapshotOf(f), mine.fields.at(f) + plan_.halo * planeCells_,
                                       count * sizeof(float), cudaMemcpyDeviceToDevice, sim_));
        CUDA_CHECK(cudaEventRecord(snapped_, sim_));
        CUDA_CHECK(cudaStreamWaitEvent(gather_, snapped_, 0));
        Group group;
        for (uint32_t f : fields) {
            group.open();
            ncclCheck(nccl().send(snapshotOf(f), count, ncclFloat, 0, gatherComm_, gather_),
                      "ncclSend");
        }
        group.close();
        CUDA_CHECK(cudaEventRecord(sent_, gather_));
    }

    // Rank 0, a frame's gather into `whole` once `wholeFree` (the last use of it) is reached:
    // its own planes on the slab's stream, the others' received on the gather stream. Returns
    // the two events the outputs wait for.
    std::pair<cudaEvent_t, cudaEvent_t> receiveShown(uint32_t mask, const SlabFields& whole,
                                                     cudaEvent_t wholeFree) {
        const SlabFields mine = slab_->slabFields();
        const std::vector<uint32_t> fields = fieldsOf(mask);
        CUDA_CHECK(cudaStreamWaitEvent(sim_, wholeFree, 0));
        for (uint32_t f : fields)
            CUDA_CHECK(cudaMemcpyAsync(whole.fields.at(f) + plan_.first[0] * planeCells_,
                                       mine.fields.at(f) + plan_.halo * planeCells_,
                                       size_t(plan_.count[0]) * planeCells_ * sizeof(float),
                                       cudaMemcpyDeviceToDevice, sim_));
        CUDA_CHECK(cudaEventRecord(snapped_, sim_));
        CUDA_CHECK(cudaStreamWaitEvent(gather_, wholeFree, 0));
        Group group;
        for (size_t i = 1; i < plan_.count.size(); ++i)
            for (uint32_t f : fields) {
                group.open();
                ncclCheck(nccl().recv(whole.fields.at(f) + plan_.first[i] * planeCells_,
                                      size_t(plan_.count[i]) * planeCells_, ncclFloat, int(i),
                                      gatherComm_, gather_),
                          "ncclRecv");
            }
        group.close();
        CUDA_CHECK(cudaEventRecord(sent_, gather_));
        return {snapped_, sent_};
    }

  private:
    void build(const SimDefinition& def, const Command& start, uint32_t ranks) {
        int least = 0, greatest = 0;
        CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        CUDA_CHECK(cudaStreamCreateWithPriority(&sim_, cudaStreamNonBlocking,
                                                slabTuning().highPriority ? greatest : least));
        CUDA_CHECK(cudaStreamCreateWithFlags(&gather_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&snapped_, cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&sent_, cudaEventDisableTiming));
        // Every rank joins the two communicators in this order.
        ncclCheck(nccl().commInitRank(&comm_, int(ranks), idOf(start.ncclId), int(rank_)),
                  "ncclCommInitRank");
        ncclCheck(
            nccl().commInitRank(&gatherComm_, int(ranks), idOf(start.gatherNcclId), int(rank_)),
            "ncclCommInitRank");
        slab_ = def.createCuda(withSlabPlanes(whole_, plan_.count[rank_] + 2 * plan_.halo));
        if (rank_ == 0) return;
        const SlabFields mine = slab_->slabFields();
        shown_ = mine.shown;
        for (size_t k = 0; k < shown_.size(); ++k) {
            float* p = nullptr;
            CUDA_CHECK(cudaMalloc(&p, size_t(plan_.count[rank_]) * planeCells_ * sizeof(float)));
            snapshots_.push_back(p);
        }
    }

    // After a failure (a rank gone, NCCL waiting for it) the streams may never finish: a bounded
    // wait, and what is left unfinished is abandoned to the process's end.
    void release(bool failing) {
        const auto limit = failing ? std::min(timeout_, std::chrono::milliseconds(5000)) : timeout_;
        bool finished = true;
        for (cudaStream_t s : {sim_, gather_})
            if (s && !finishedWithin(s, limit)) finished = false;
        if (!finished) { // freeing memory would wait for the stuck kernels: leave it all
            abandonRankGpuWork();
            (void)slab_.release();
            return;
        }
        for (float* p : snapshots_)
            (void)cudaFree(p);
        snapshots_.clear();
        slab_.reset();
        if (gatherComm_) (void)nccl().commDestroy(gatherComm_);
        if (comm_) (void)nccl().commDestroy(comm_);
        gatherComm_ = comm_ = nullptr;
        for (cudaEvent_t e : {snapped_, sent_})
            if (e) (void)cudaEventDestroy(e);
        for (cudaStream_t s : {sim_, gather_})
            if (s) (void)cudaStreamDestroy(s);
        snapped_ = sent_ = nullptr;
        sim_ = gather_ = nullptr;
    }

    float* snapshotOf(uint32_t field) const {
        const auto it = std::find(shown_.begin(), shown_.end(), field);
        if (it == shown_.end())
            throw runtimeError("rank 0 asked for field " + std::to_string(field) +
                               " in a frame's gather; it is not shown");
        return snapshots_[size_t(it - shown_.begin())];
    }

    // haloCopies in order, field by field, as sends and receives of this rank (every rank
    // issues its part of the list in the list's order, which is how NCCL pairs them).
    void exchange() {
        const SlabFields mine = slab_->slabFields();
        const size_t count = size_t(plan_.halo) * planeCells_;
        Group group;
        for (const HaloCopy& c : copies_) {
            if (c.from != rank_ && c.to != rank_) continue;
            for (float* field : mine.fields) {
                group.open();
                if (c.from == rank_)
                    ncclCheck(nccl().send(field + c.fromPlane * planeCells_, count, ncclFloat,
                                          int(c.to), comm_, sim_),
                              "ncclSend");
                if (c.to == rank_)
                    ncclCheck(nccl().recv(field + c.toPlane * planeCells_, count, ncclFloat,
                                          int(c.from), comm_, sim_),
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
    std::chrono::milliseconds timeout_;
    bool halosFresh_ = false;       // halos exchanged after the last pass, nothing since
    cudaStream_t sim_ = nullptr;    // the slab's steps, halos, a brush's moves
    cudaStream_t gather_ = nullptr; // the frames' gathers: sends (rank k) or receives (rank 0)
    // Rank k: snapshot written (sim_) / last send done (gather_). Rank 0: own planes in the
    // whole-grid object (sim_) / last receive done (gather_).
    cudaEvent_t snapped_ = nullptr, sent_ = nullptr;
    ncclComm_t comm_ = nullptr;       // halos, a brush's gather and scatter
    ncclComm_t gatherComm_ = nullptr; // the frames' gathers
    std::unique_ptr<CudaSimulation> slab_;
    std::vector<uint32_t> shown_; // rank k: the shown fields, and a snapshot of each
    std::vector<float*> snapshots_;
};

// Rank 0's object (createRankedCuda). Every call only enqueues: the slab's stream waits for the
// caller's only where the whole-grid object or a reset needs it, and the caller's stream waits
// for the slab's after every call, so its finishing means this rank's part is done.
class RankedCuda final : public CudaSimulation {
  public:
    RankedCuda(const SimDefinition& def, const GridSize& whole, ranks::Links& links,
               double displayShare, uint32_t maxHalo)
        : links_(links), start_(makeStart(def, whole, links.size(), displayShare, maxHalo)) {
        // Every rank says it has its GPU before all join the communicators: a rank that cannot
        // join exits and closes its link instead of leaving the others waiting in NCCL.
        broadcast(links_, start_);
        for (uint32_t r = 1; r < links_.size(); ++r) {
            uint32_t ready = 0;
            links_.receive(r, &ready, sizeof(ready));
        }
        part_ = std::make_unique<DeviceSlab>(def, start_, 0, links.size(), links.job().timeout);
        wholeSim_ = def.createCuda(whole);
        allMask_ = (1u << wholeSim_->slabFields().fields.size()) - 1;
        shownMask_ = maskOf(wholeSim_->slabFields().shown);
        CUDA_CHECK(cudaEventCreateWithFlags(&forked_, cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&joined_, cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&wholeFree_, cudaEventDisableTiming));
    }
    ~RankedCuda() override {
        try {
            broadcast(links_, command(CommandKind::End));
        } catch (const Error&) { // a closed link was reported where it closed
        }
        part_.reset();
        if (rankGpuWorkAbandoned()) (void)wholeSim_.release(); // see DeviceSlab::release
        for (cudaEvent_t e : {forked_, joined_, wholeFree_})
            if (e) (void)cudaEventDestroy(e);
    }
    RankedCuda(const RankedCuda&) = delete;
    RankedCuda& operator=(const RankedCuda&) = delete;

    void reset(uint64_t seed, cudaStream_t stream) override {
        Command c = command(CommandKind::Reset);
        c.seed = seed;
        broadcast(links_, c);
        fork(stream);
        part_->reset(seed);
        join(stream);
    }

    // No fork: the slab's stream holds all that reads or writes the slab, so the next frame's
    // steps run while this frame's outputs are written and drawn.
    void step(const ParamValues& params, int steps, cudaStream_t stream) override {
        Command c = command(CommandKind::Step);
        c.steps = steps;
        putParams(c, params);
        broadcast(links_, c);
        part_->step(params, steps);
        join(stream);
    }

    // Every frame sends its commands, so it is never replayed from a graph (replayState stays
    // nullopt).
    void writeOutputs(const DeviceTargets& targets, cudaStream_t stream) override {
        Command c = command(CommandKind::Shown);
        c.fields = shownMask_;
        broadcast(links_, c);
        const auto [own, received] =
            part_->receiveShown(shownMask_, wholeSim_->slabFields(), wholeFree_);
        CUDA_CHECK(cudaStreamWaitEvent(stream, own, 0));
        CUDA_CHECK(cudaStreamWaitEvent(stream, received, 0));
        wholeSim_->writeOutputs(targets, stream);
        CUDA_CHECK(cudaEventRecord(wholeFree_, stream));
    }

    // Gather every field, paint, scatter: each move after everything before it.
    void brush(const Brush& brush, const ParamValues& params, cudaStream_t stream) override {
        Command c = command(CommandKind::Gather);
        c.fields = allMask_;
        broadcast(links_, c);
        fork(stream);
        const SlabFields gathered = wholeSim_->slabFields();
        part_->move(allMask_, &gathered, true);
        join(stream);
        wholeSim_->brush(brush, params, stream);
        c.kind = CommandKind::Scatter;
        broadcast(links_, c);
        fork(stream);
        const SlabFields painted = wholeSim_->slabFields();
        part_->move(allMask_, &painted, false);
        join(stream);
        CUDA_CHECK(cudaEventRecord(wholeFree_, stream)); // the scatter read the whole grid
    }

  private:
    static Command makeStart(const SimDefinition& def, const GridSize& whole, uint32_t ranks,
                             double displayShare, uint32_t maxHalo) {
        Command c = startCommand(def, whole, ranks, maxHalo,
                                 resolveDisplayShare(displayShare, ranks), RankBackend::Cuda);
        (void)planOf(c, ranks); // a bad plan fails here, before any rank starts
        for (uint8_t(*id)[128] : {&c.ncclId, &c.gatherNcclId}) {
            ncclUniqueId unique{};
            ncclCheck(nccl().getUniqueId(&unique), "ncclGetUniqueId");
            std::memcpy(*id, unique.internal, sizeof(*id));
        }
        return c;
    }

    Command command(CommandKind kind) const {
        Command c;
        c.kind = kind;
        c.run = start_.run;
        return c;
    }

    // The slab's stream waits for what the caller's stream holds so far.
    void fork(cudaStream_t stream) {
        CUDA_CHECK(cudaEventRecord(forked_, stream));
        CUDA_CHECK(cudaStreamWaitEvent(part_->stream(), forked_, 0));
    }
    // The caller's stream waits for what the slab's stream holds so far.
    void join(cudaStream_t stream) {
        CUDA_CHECK(cudaEventRecord(joined_, part_->stream()));
        CUDA_CHECK(cudaStreamWaitEvent(stream, joined_, 0));
    }

    ranks::Links& links_;
    Command start_;
    std::unique_ptr<DeviceSlab> part_;
    std::unique_ptr<CudaSimulation> wholeSim_; // the gathered planes, for the outputs
    uint32_t allMask_ = 0, shownMask_ = 0;
    cudaEvent_t forked_ = nullptr, joined_ = nullptr;
    cudaEvent_t wholeFree_ = nullptr; // the caller's stream after the last use of wholeSim_
};

// A rank above 0's part: its local rank's GPU. It only enqueues, as rank 0 does; what it may
// have queued is bounded by rank 0, whose frames in flight are bounded and whose GPU meets this
// one's in every exchange.
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
        const uint32_t ready = 1;
        links.send(0, &ready, sizeof(ready));
        part_ = std::make_unique<DeviceSlab>(def, start, links.rank(), links.size(),
                                             links.job().timeout);
    }

    void reset(uint64_t seed) override { part_->reset(seed); }
    void step(const ParamValues& params, int steps) override { part_->step(params, steps); }
    void gather(uint32_t fields) override { part_->move(fields, nullptr, true); }
    void gatherShown(uint32_t fields) override { part_->sendShown(fields); }
    void scatter(uint32_t fields) override { part_->move(fields, nullptr, false); }

  private:
    std::unique_ptr<DeviceSlab> part_;
};

} // namespace

std::unique_ptr<CudaSimulation> createRankedCuda(const SimDefinition& def, const GridSize& whole,
                                                 ranks::Links& links, uint32_t maxHalo,
                                                 double displayShare) {
    return std::make_unique<RankedCuda>(def, whole, links, displayShare, maxHalo);
}

std::unique_ptr<RankPart> createCudaRankPart(const SimDefinition& def, const Command& start,
                                             ranks::Links& links) {
    return std::make_unique<DevicePart>(def, start, links);
}

} // namespace estuary::sim
#endif
