// The ranked split run on the host (slabs_ranks.h), and the loop the ranks above 0 follow for
// both backends.
#include "slabs_ranks.h"
#include "errors.h"
#include "links.h"
#include "rank_commands.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <string>

namespace estuary::sim {

void broadcast(ranks::Links& links, const Command& c) {
    std::vector<ranks::Transfer> sends;
    for (uint32_t r = 1; r < links.size(); ++r)
        sends.push_back({r, true, const_cast<Command*>(&c), sizeof(c)});
    links.transfer(sends);
}

void putParams(Command& c, const ParamValues& params) {
    if (params.size() > kMaxCommandParams)
        throw usageError("a ranked run takes at most " + std::to_string(kMaxCommandParams) +
                         " parameters");
    c.paramCount = uint32_t(params.size());
    std::copy(params.begin(), params.end(), c.params);
}

ParamValues paramsOf(const Command& c) {
    return ParamValues(c.params, c.params + std::min(c.paramCount, kMaxCommandParams));
}

Command startCommand(const SimDefinition& def, const GridSize& whole, uint32_t slabs,
                     uint32_t maxHalo, double displayShare, RankBackend backend) {
    static uint32_t runs = 0;
    Command c;
    c.kind = CommandKind::Start;
    c.run = ++runs;
    c.backend = backend;
    c.width = whole.width;
    c.height = whole.height;
    c.depth = whole.depth;
    c.slabs = slabs;
    c.maxHalo = maxHalo;
    c.displayShare = displayShare;
    if (def.name.size() >= sizeof(c.simulation))
        throw usageError("a ranked run's simulation name is at most 63 characters");
    std::memcpy(c.simulation, def.name.c_str(), def.name.size());
    return c;
}

SlabPlan planOf(const Command& start, uint32_t ranks) {
    return planRankSlabs({start.width, start.height, start.depth}, start.slabs, ranks,
                         start.displayShare, start.maxHalo);
}

double resolveDisplayShare(double displayShare, uint32_t ranks) {
    if (ranks <= 1) return 1;
    if (displayShare == 0)
        displayShare = defaultDisplayShare(ranks); // as one process's display GPU, gathering
    if (!(displayShare > 0 && displayShare < 1))
        throw usageError("rank 0's share of the grid (--display-share) must be between 0 and 1, "
                         "got " +
                         std::to_string(displayShare));
    return displayShare;
}

SlabPlan planRankSlabs(const GridSize& whole, uint32_t slabs, uint32_t ranks, double displayShare,
                       uint32_t maxHalo) {
    if (ranks <= 1) return planSlabs(whole, slabs, maxHalo);
    if (slabs < ranks)
        throw usageError(std::to_string(slabs) + " slabs for " + std::to_string(ranks) +
                         " ranks: every rank needs a slab");
    const double share = resolveDisplayShare(displayShare, ranks);
    return planSlabs(whole, displayShareWeights(slabs, ranks, share), maxHalo);
}

namespace {

// One rank's slabs of a run on the host: the same objects, plan and copies as SlabbedCpu, the
// copies between ranks over the links.
class HostSlabs {
  public:
    HostSlabs(const SimDefinition& def, const Command& start, ranks::Links& links)
        : links_(links), whole_{start.width, start.height, start.depth},
          plan_(planOf(start, links.size())), planeCells_(slabPlaneCells(whole_)),
          copies_(haloCopies(plan_)) {
        if (!def.splittable || !def.createCpu)
            throw usageError(def.name + " cannot be split into slabs");
        slabs_.resize(plan_.count.size());
        for (size_t i = 0; i < slabs_.size(); ++i)
            if (rankOf(i) == links.rank())
                slabs_[i] = def.createCpu(withSlabPlanes(whole_, plan_.count[i] + 2 * plan_.halo));
    }

    uint32_t rankOf(size_t slab) const { return rankOfSlab(slab, slabs_.size(), links_.size()); }

    void reset(uint64_t seed) {
        for (size_t i = 0; i < slabs_.size(); ++i)
            if (slabs_[i]) slabs_[i]->resetAsPart(seed, whole_, slabLocalToWhole(plan_, i, 0));
    }

    void step(const ParamValues& params, int steps) {
        while (steps > 0) {
            const int now = std::min(steps, int(plan_.halo));
            exchange();
            for (auto& slab : slabs_)
                if (slab) slab->step(params, now);
            steps -= now;
        }
    }

    // The own planes of the fields in `mask` between the slabs and `whole` (rank 0: a whole
    // grid's fields; others: unused), toward rank 0 (gather) or from it (scatter).
    void move(uint32_t mask, const SlabFields* whole, bool gather) {
        std::vector<ranks::Transfer> transfers;
        const uint32_t me = links_.rank();
        for (size_t i = 0; i < slabs_.size(); ++i) {
            const uint32_t owner = rankOf(i);
            if (me != 0 && owner != me) continue;
            const size_t bytes = size_t(plan_.count[i]) * planeCells_ * sizeof(float);
            const SlabFields slab = slabs_[i] ? slabs_[i]->slabFields() : SlabFields{};
            for (uint32_t f = 0; f < 32; ++f) {
                if (!(mask >> f & 1)) continue;
                float* own =
                    slab.fields.empty() ? nullptr : slab.fields.at(f) + plan_.halo * planeCells_;
                if (me != 0) {
                    transfers.push_back({0, gather, own, bytes});
                    continue;
                }
                float* there = whole->fields.at(f) + plan_.first[i] * planeCells_;
                if (owner == 0)
                    std::memcpy(gather ? there : own, gather ? own : there, bytes);
                else
                    transfers.push_back({owner, !gather, there, bytes});
            }
        }
        links_.transfer(transfers);
    }

  private:
    // haloCopies in order, field by field: copies within this rank by memcpy, the others as
    // sends and receives on the links (each link carries them in the list's order both ways).
    void exchange() {
        std::vector<SlabFields> fields(slabs_.size());
        for (size_t i = 0; i < slabs_.size(); ++i)
            if (slabs_[i]) fields[i] = slabs_[i]->slabFields();
        const uint32_t me = links_.rank();
        const size_t bytes = size_t(plan_.halo) * planeCells_ * sizeof(float);
        std::vector<ranks::Transfer> transfers;
        for (const HaloCopy& c : copies_) {
            const uint32_t from = rankOf(c.from), to = rankOf(c.to);
            if (from != me && to != me) continue;
            const size_t count = fields[from == me ? c.from : c.to].fields.size();
            for (size_t f = 0; f < count; ++f) {
                float* source =
                    from == me ? fields[c.from].fields[f] + c.fromPlane * planeCells_ : nullptr;
                float* target =
                    to == me ? fields[c.to].fields[f] + c.toPlane * planeCells_ : nullptr;
                if (from == to)
                    std::memcpy(target, source, bytes);
                else if (from == me)
                    transfers.push_back({to, true, source, bytes});
                else
                    transfers.push_back({from, false, target, bytes});
            }
        }
        links_.transfer(transfers);
    }

    ranks::Links& links_;
    GridSize whole_;
    SlabPlan plan_;
    size_t planeCells_;
    std::vector<HaloCopy> copies_;
    std::vector<std::unique_ptr<CpuSimulation>> slabs_; // nullptr: another rank's
};

// Rank 0's object (createRankedCpu).
class RankedCpu final : public CpuSimulation {
  public:
    RankedCpu(const SimDefinition& def, const GridSize& whole, uint32_t slabs, double displayShare,
              uint32_t maxHalo, ranks::Links& links)
        : links_(links),
          start_(startCommand(def, whole, slabs, maxHalo,
                              resolveDisplayShare(displayShare, links.size()), RankBackend::Cpu)),
          part_(def, start_, links), wholeSim_(def.createCpu(whole)) {
        broadcast(links_, start_);
        const std::vector<uint32_t> all = allFields();
        allMask_ = maskOf(all);
        if (all.size() > 32) throw usageError(def.name + " has more than 32 fields to split");
    }

    ~RankedCpu() override {
        try {
            broadcast(links_, command(CommandKind::End));
        } catch (const Error&) { // a closed link was reported where it closed
        }
    }

    void reset(uint64_t seed) override {
        Command c = command(CommandKind::Reset);
        c.seed = seed;
        broadcast(links_, c);
        part_.reset(seed);
    }

    void step(const ParamValues& params, int steps) override {
        Command c = command(CommandKind::Step);
        c.steps = steps;
        putParams(c, params);
        broadcast(links_, c);
        part_.step(params, steps);
    }

    void writeOutputs(const HostTargets& targets) override {
        gather(maskOf(wholeSim_->slabFields().shown), CommandKind::Shown);
        wholeSim_->writeOutputs(targets);
    }

    void brush(const Brush& brush, const ParamValues& params) override {
        gather(allMask_, CommandKind::Gather);
        wholeSim_->brush(brush, params);
        Command c = command(CommandKind::Scatter);
        c.fields = allMask_;
        broadcast(links_, c);
        const SlabFields whole = wholeSim_->slabFields();
        part_.move(allMask_, &whole, false);
    }

  private:
    Command command(CommandKind kind) const {
        Command c;
        c.kind = kind;
        c.run = start_.run;
        return c;
    }

    void gather(uint32_t mask, CommandKind kind) {
        Command c = command(kind);
        c.fields = mask;
        broadcast(links_, c);
        const SlabFields whole = wholeSim_->slabFields();
        part_.move(mask, &whole, true);
    }

    std::vector<uint32_t> allFields() {
        std::vector<uint32_t> all(wholeSim_->slabFields().fields.size());
        for (uint32_t f = 0; f < all.size(); ++f)
            all[f] = f;
        return all;
    }

    ranks::Links& links_;
    Command start_;
    HostSlabs part_;
    std::unique_ptr<CpuSimulation> wholeSim_; // holds the gathered planes for the outputs
    uint32_t allMask_ = 0;
};

// A rank above 0's part of a host run.
class HostPart final : public RankPart {
  public:
    HostPart(const SimDefinition& def, const Command& start, ranks::Links& links)
        : slabs_(def, start, links) {}
    void reset(uint64_t seed) override { slabs_.reset(seed); }
    void step(const ParamValues& params, int steps) override { slabs_.step(params, steps); }
    void gather(uint32_t fields) override { slabs_.move(fields, nullptr, true); }
    void scatter(uint32_t fields) override { slabs_.move(fields, nullptr, false); }

  private:
    HostSlabs slabs_;
};

} // namespace

std::unique_ptr<CpuSimulation> createRankedCpu(const SimDefinition& def, const GridSize& whole,
                                               uint32_t slabs, ranks::Links& links,
                                               uint32_t maxHalo, double displayShare) {
    return std::make_unique<RankedCpu>(def, whole, slabs, displayShare, maxHalo, links);
}

ServedRank serveRank(ranks::Links& links, FindSimulation find) {
    ServedRank served;
    std::map<uint32_t, std::unique_ptr<RankPart>> parts;
    const auto part = [&](const Command& c) -> RankPart& {
        const auto it = parts.find(c.run);
        if (it == parts.end())
            throw runtimeError("rank 0 sent a command for run " + std::to_string(c.run) +
                               ", which was not started");
        return *it->second;
    };
    for (;;) {
        Command c;
        const ranks::Transfer t{0, false, &c, sizeof(c)};
        links.transfer({&t, 1}, std::nullopt); // rank 0 may idle (a window): wait for it
        if (c.magic != kCommandMagic)
            throw runtimeError("rank 0 sent something that is not a command of this estuary");
        switch (c.kind) {
        case CommandKind::Start: {
            const std::string name(c.simulation, strnlen(c.simulation, sizeof(c.simulation)));
            const SimDefinition* def = find(name);
            if (!def) throw runtimeError("rank 0 started '" + name + "', unknown here");
            parts[c.run] = c.backend == RankBackend::Cuda
                               ? createCudaRankPart(*def, c, links)
                               : std::make_unique<HostPart>(*def, c, links);
            ++served.runs;
            break;
        }
        case CommandKind::End:
            parts.erase(c.run);
            break;
        case CommandKind::Reset:
            part(c).reset(c.seed);
            break;
        case CommandKind::Step:
            part(c).step(paramsOf(c), c.steps);
            served.steps += uint64_t(std::max(0, c.steps));
            break;
        case CommandKind::Gather:
            part(c).gather(c.fields);
            ++served.gathers;
            break;
        case CommandKind::Shown:
            part(c).gatherShown(c.fields);
            ++served.gathers;
            break;
        case CommandKind::Scatter:
            part(c).scatter(c.fields);
            break;
        case CommandKind::Stop:
            return served;
        default:
            throw runtimeError("rank 0 sent an unknown command (" +
                               std::to_string(uint32_t(c.kind)) + ")");
        }
    }
}

namespace {
std::atomic<bool> gAbandoned{false};
} // namespace

void abandonRankGpuWork() {
    gAbandoned = true;
}

bool rankGpuWorkAbandoned() {
    return gAbandoned;
}

void endRanks(ranks::Links& links) {
    Command c;
    c.kind = CommandKind::Stop;
    broadcast(links, c);
}

} // namespace estuary::sim
