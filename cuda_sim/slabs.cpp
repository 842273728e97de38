#include "slabs.h"
#include "errors.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace estuary::sim {

uint32_t slabAxisPlanes(const GridSize& grid) {
    return grid.depth > 1 ? grid.depth : grid.height;
}

size_t slabPlaneCells(const GridSize& grid) {
    return grid.depth > 1 ? size_t(grid.width) * grid.height : size_t(grid.width);
}

GridSize withSlabPlanes(GridSize grid, uint32_t planes) {
    (grid.depth > 1 ? grid.depth : grid.height) = planes;
    return grid;
}

const char* slabPlaneName(const GridSize& grid) {
    return grid.depth > 1 ? "slices" : "rows";
}

namespace {

SlabPlan makePlan(uint32_t planes, uint32_t slabs, uint32_t maxHalo, const char* planeName) {
    if (slabs < 1) throw usageError("--slabs must be at least 1, got " + std::to_string(slabs));
    if (maxHalo < 1) throw usageError("a slab halo must be at least 1 plane");
    if (planes / slabs < 2)
        throw usageError("--slabs " + std::to_string(slabs) + ": the grid's " +
                         std::to_string(planes) + " " + planeName +
                         " leave slabs of fewer than 2; allowed: 1.." + std::to_string(planes / 2));
    SlabPlan plan;
    plan.planes = planes;
    uint32_t next = 0;
    for (uint32_t i = 0; i < slabs; ++i) {
        const uint32_t count = planes / slabs + (i < planes % slabs ? 1 : 0);
        plan.first.push_back(next);
        plan.count.push_back(count);
        next += count;
    }
    plan.halo = std::min(maxHalo, planes / slabs);
    return plan;
}

} // namespace

SlabPlan planSlabs(const GridSize& grid, const std::vector<double>& weights, uint32_t maxHalo) {
    const uint32_t planes = slabAxisPlanes(grid);
    SlabPlan plan = makePlan(planes, uint32_t(weights.size()), maxHalo, slabPlaneName(grid));
    double total = 0;
    for (double w : weights) {
        if (!(w > 0) || !std::isfinite(w))
            throw usageError("a slab's share of the grid must be positive, got " +
                             std::to_string(w));
        total += w;
    }
    double sum = 0;
    uint32_t next = 0;
    for (size_t i = 0; i < weights.size(); ++i) {
        sum += weights[i];
        const uint32_t end =
            i + 1 == weights.size() ? planes : uint32_t(std::llround(sum / total * planes));
        if (end < next + 2)
            throw usageError("slab " + std::to_string(i) + "'s share of the grid's " +
                             std::to_string(planes) + " " + slabPlaneName(grid) +
                             " is fewer than 2; give it a larger share");
        plan.first[i] = next;
        plan.count[i] = end - next;
        next = end;
    }
    plan.halo = std::min(maxHalo, *std::min_element(plan.count.begin(), plan.count.end()));
    return plan;
}

SlabPlan planSlabs(uint32_t planes, uint32_t slabs, uint32_t maxHalo) {
    return makePlan(planes, slabs, maxHalo, "planes");
}

SlabPlan planSlabs(const GridSize& grid, uint32_t slabs, uint32_t maxHalo) {
    return makePlan(slabAxisPlanes(grid), slabs, maxHalo, slabPlaneName(grid));
}

uint32_t autoSlabHalo(uint32_t thinnest, uint32_t gpus, int stepsPerFrame) {
    const uint32_t shallow = std::min(kDefaultSlabHalo, thinnest);
    if (gpus <= 1 || stepsPerFrame <= int(kDefaultSlabHalo)) return shallow;
    const uint32_t deep = uint32_t(std::min<int64_t>(stepsPerFrame, kMaxSlabHalo));
    const uint64_t redundant = 2 * uint64_t(deep - kDefaultSlabHalo);
    return deep <= thinnest && 16 * redundant <= thinnest ? deep : shallow;
}

std::vector<double> displayShareWeights(uint32_t slabs, uint32_t gpus, double share) {
    std::vector<size_t> onGpu(gpus);
    for (uint32_t i = 0; i < slabs; ++i)
        ++onGpu[gpuOfSlab(i, slabs, gpus)];
    std::vector<double> weights;
    for (uint32_t i = 0; i < slabs; ++i) {
        const size_t g = gpuOfSlab(i, slabs, gpus);
        const double gpuShare = g == 0 ? share : (1 - share) / double(gpus - 1);
        weights.push_back(gpuShare / double(onGpu[g]));
    }
    return weights;
}

const SlabTuning& slabTuning() {
    static const SlabTuning tuning = [] {
        const auto off = [](const char* name) {
            const char* value = std::getenv(name);
            return value && std::string_view(value) == "0";
        };
        SlabTuning t;
        t.eagerHalos = !off("ESTUARY_SLAB_EAGER_HALOS");
        t.highPriority = !off("ESTUARY_SLAB_PRIORITY");
        const char* halos = std::getenv("ESTUARY_SLAB_HALOS");
        const std::string_view h = halos ? halos : "";
        t.halos = h == "peer"   ? HaloTransport::Peer
                  : h == "nccl" ? HaloTransport::Nccl
                                : HaloTransport::Auto;
        return t;
    }();
    return tuning;
}

double defaultDisplayShare(uint32_t gpus, bool sortLast) {
    if (gpus <= 1) return 1;
    return (sortLast ? 1.0 : kDefaultDisplayShareOfEven) / double(gpus);
}

SlabPlan planSlabRun(const GridSize& grid, const SlabRunLayout& layout) {
    if (layout.halo > kMaxSlabHalo)
        throw usageError("--halo " + std::to_string(layout.halo) + ": allowed 1.." +
                         std::to_string(kMaxSlabHalo) + " planes");
    if (layout.gpus < 1) throw usageError("--gpus must be at least 1");
    if (layout.slabs >= 1 && layout.gpus > layout.slabs)
        throw usageError("--slabs " + std::to_string(layout.slabs) + " for " +
                         std::to_string(layout.gpus) +
                         " GPUs: every GPU needs at least one slab (allowed: --slabs " +
                         std::to_string(layout.gpus) + " or more)");
    SlabPlan plan;
    if (layout.gpus < 2) {
        plan = planSlabs(grid, layout.slabs, kMaxSlabHalo);
    } else {
        const double share = layout.displayShare > 0
                                 ? layout.displayShare
                                 : defaultDisplayShare(layout.gpus, layout.sortLast);
        if (!(share < 1))
            throw usageError("the display GPU's share of the grid must be between 0 and 1, got " +
                             std::to_string(share));
        plan = planSlabs(grid, displayShareWeights(layout.slabs, layout.gpus, share), kMaxSlabHalo);
    }
    const uint32_t thinnest = *std::min_element(plan.count.begin(), plan.count.end());
    if (layout.halo > thinnest)
        throw usageError("--halo " + std::to_string(layout.halo) + ": the thinnest slab holds " +
                         std::to_string(thinnest) + " " + slabPlaneName(grid) +
                         ", and a halo is copied from one neighbour's own planes; allowed: 1.." +
                         std::to_string(thinnest));
    plan.halo =
        layout.halo > 0 ? layout.halo : autoSlabHalo(thinnest, layout.gpus, layout.stepsPerFrame);
    return plan;
}

std::vector<HaloCopy> haloCopies(const SlabPlan& plan) {
    std::vector<HaloCopy> copies;
    const size_t n = plan.count.size();
    for (size_t up = 0; up < n; ++up) {
        const size_t down = (up + 1) % n;
        copies.push_back({up, down, plan.count[up], 0});
        copies.push_back({down, up, plan.halo, plan.halo + plan.count[up]});
    }
    return copies;
}

namespace {

// The CPU backend's split run (slabs.h): host copies between the slabs' grids.
class SlabbedCpu final : public CpuSimulation {
  public:
    SlabbedCpu(const SimDefinition& def, const GridSize& whole, const SlabPlan& plan)
        : whole_(whole), plan_(plan), planeCells_(slabPlaneCells(whole)),
          haloCopies_(haloCopies(plan_)) {
        if (!def.splittable || !def.createCpu)
            throw usageError(def.name + " cannot be split into slabs");
        for (size_t i = 0; i < plan_.count.size(); ++i)
            slabs_.push_back(def.createCpu(withSlabPlanes(whole, plan_.count[i] + 2 * plan_.halo)));
        wholeSim_ = def.createCpu(whole);
    }

    void reset(uint64_t seed) override {
        for (size_t i = 0; i < slabs_.size(); ++i)
            slabs_[i]->resetAsPart(seed, whole_, slabLocalToWhole(plan_, i, 0));
    }

    void step(const ParamValues& params, int steps) override {
        while (steps > 0) {
            const int now = std::min(steps, int(plan_.halo));
            exchange();
            for (auto& slab : slabs_)
                slab->step(params, now);
            steps -= now;
        }
    }

    void writeOutputs(const HostTargets& targets) override {
        gather(wholeSim_->slabFields().shown);
        wholeSim_->writeOutputs(targets);
    }

    void brush(const Brush& brush, const ParamValues& params) override {
        const std::vector<uint32_t> all = allFields();
        gather(all);
        wholeSim_->brush(brush, params);
        const SlabFields whole = wholeSim_->slabFields();
        for (size_t i = 0; i < slabs_.size(); ++i) {
            const SlabFields slab = slabs_[i]->slabFields();
            for (uint32_t f : all)
                copyPlanes(whole.fields[f], plan_.first[i], slab.fields[f], plan_.halo,
                           plan_.count[i]);
        }
    }

  private:
    void copyPlanes(const float* from, size_t fromPlane, float* to, size_t toPlane,
                    size_t planes) const {
        std::memcpy(to + toPlane * planeCells_, from + fromPlane * planeCells_,
                    planes * planeCells_ * sizeof(float));
    }

    std::vector<uint32_t> allFields() {
        std::vector<uint32_t> all(wholeSim_->slabFields().fields.size());
        for (uint32_t f = 0; f < all.size(); ++f)
            all[f] = f;
        return all;
    }

    // Each slab's halos from its neighbours' own edge planes (the grid wraps: slab 0's upper
    // neighbour is the last slab).
    void exchange() {
        std::vector<SlabFields> fields;
        for (auto& slab : slabs_)
            fields.push_back(slab->slabFields());
        for (const HaloCopy& c : haloCopies_)
            for (size_t f = 0; f < fields[c.from].fields.size(); ++f)
                copyPlanes(fields[c.from].fields[f], c.fromPlane, fields[c.to].fields[f], c.toPlane,
                           plan_.halo);
    }

    // The slabs' own planes of the listed fields into the whole grid's object.
    void gather(const std::vector<uint32_t>& which) {
        const SlabFields whole = wholeSim_->slabFields();
        for (size_t i = 0; i < slabs_.size(); ++i) {
            const SlabFields slab = slabs_[i]->slabFields();
            for (uint32_t f : which)
                copyPlanes(slab.fields[f], plan_.halo, whole.fields[f], plan_.first[i],
                           plan_.count[i]);
        }
    }

    GridSize whole_;
    SlabPlan plan_;
    size_t planeCells_;
    std::vector<HaloCopy> haloCopies_;
    std::vector<std::unique_ptr<CpuSimulation>> slabs_;
    std::unique_ptr<CpuSimulation> wholeSim_; // holds the gathered planes for the outputs
};

} // namespace

std::unique_ptr<CpuSimulation> createSlabbedCpu(const SimDefinition& def, const GridSize& whole,
                                                uint32_t slabs, uint32_t maxHalo) {
    return std::make_unique<SlabbedCpu>(def, whole, planSlabs(whole, slabs, maxHalo));
}

std::unique_ptr<CpuSimulation> createSlabbedCpu(const SimDefinition& def, const GridSize& whole,
                                                const SlabPlan& plan) {
    if (plan.planes != slabAxisPlanes(whole) || plan.count.empty() || plan.halo < 1 ||
        plan.halo > *std::min_element(plan.count.begin(), plan.count.end()))
        throw usageError("a slab plan that does not fit the grid");
    return std::make_unique<SlabbedCpu>(def, whole, plan);
}

} // namespace estuary::sim
