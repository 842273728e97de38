// The grid split into slabs (cuda_sim/slabs.h) on the CPU backend: every output level of a split
// run equals the unsplit run's bit for bit, for 2D and 3D, slab counts that do and do not divide
// the grid, odd grids, halos of 1 to 4 planes, step counts that are and are not multiples of the
// halo, across resets and brush strokes; the plan's arithmetic and its refusals.
#include "errors.h"
#include "simulations.h"
#include "slabs.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace estuary::sim {
namespace {

const SimDefinition& definition(const char* name) {
    const SimDefinition* def = estuary::findSimulation(name);
    if (!def) throw std::logic_error(std::string(name) + " is not registered");
    return *def;
}

// Every level of every output image, as bytes.
std::vector<std::vector<uint8_t>> outputs(CpuSimulation& sim, const SimDefinition& def,
                                          const GridSize& grid) {
    const OutputLayout layout = def.outputs(grid);
    std::vector<std::vector<uint8_t>> bytes;
    std::vector<std::vector<void*>> levels(layout.images.size());
    std::vector<HostImageTarget> targets;
    for (size_t i = 0; i < layout.images.size(); ++i) {
        const ImageOutput& image = layout.images[i];
        for (uint32_t level = 0; level < levelCount(image); ++level)
            bytes.emplace_back(size_t(mipSize(image.width, level)) * mipSize(image.height, level) *
                               mipSize(image.depth, level) * texelBytes(image.format));
    }
    size_t next = 0;
    for (size_t i = 0; i < layout.images.size(); ++i) {
        for (uint32_t level = 0; level < levelCount(layout.images[i]); ++level)
            levels[i].push_back(bytes[next++].data());
        targets.push_back({levels[i]});
    }
    sim.writeOutputs({targets, {}});
    return bytes;
}

size_t differingLevels(const std::vector<std::vector<uint8_t>>& a,
                       const std::vector<std::vector<uint8_t>>& b) {
    size_t differing = 0;
    for (size_t i = 0; i < a.size(); ++i)
        differing += a[i] != b[i];
    return differing;
}

struct SplitCase {
    const char* simulation;
    GridSize grid;
    uint32_t slabs, halo;
};

TEST(SimSlabs, EverySplitRunEqualsTheUnsplitRunBitForBit) {
    const SplitCase cases[] = {
        {"gray-scott", {64, 48}, 2, 4},        {"gray-scott", {97, 61}, 3, 4},
        {"gray-scott", {97, 61}, 7, 4},        {"gray-scott", {33, 29}, 5, 3},
        {"gray-scott", {40, 30}, 15, 2},       {"gray-scott", {31, 23}, 4, 1},
        {"gray-scott", {50, 40}, 1, 4},        {"gray-scott-3d", {20, 18, 24}, 2, 4},
        {"gray-scott-3d", {17, 19, 23}, 3, 4}, {"gray-scott-3d", {16, 16, 22}, 5, 2},
    };
    for (const SplitCase& c : cases) {
        const SimDefinition& def = definition(c.simulation);
        SCOPED_TRACE(std::string(c.simulation) + " " + std::to_string(c.grid.width) + "x" +
                     std::to_string(c.grid.height) + "x" + std::to_string(c.grid.depth) + ", " +
                     std::to_string(c.slabs) + " slabs, halo " + std::to_string(c.halo));
        std::unique_ptr<CpuSimulation> whole = def.createCpu(c.grid);
        std::unique_ptr<CpuSimulation> split = createSlabbedCpu(def, c.grid, c.slabs, c.halo);
        const ParamValues params = initialParams(def);
        for (uint64_t seed : {3u, 11u}) {
            whole->reset(seed);
            split->reset(seed);
            EXPECT_EQ(differingLevels(outputs(*whole, def, c.grid), outputs(*split, def, c.grid)),
                      0u)
                << "after reset(" << seed << ")";
            // 1, the halo, a multiple of it and one that is not: every pass length.
            for (int steps : {1, int(c.halo), 3 * int(c.halo), 7, 40}) {
                whole->step(params, steps);
                split->step(params, steps);
            }
            const auto expected = outputs(*whole, def, c.grid);
            const auto got = outputs(*split, def, c.grid);
            EXPECT_EQ(differingLevels(expected, got), 0u) << "of " << expected.size() << " levels";
            // The field moved: the comparison is not of two unchanged seeds.
            whole->reset(seed);
            EXPECT_NE(differingLevels(outputs(*whole, def, c.grid), expected), 0u);
        }
    }
}

TEST(SimSlabs, BrushStrokesAcrossSlabBoundariesAndTheWrapMatchTheUnsplitRun) {
    const SimDefinition& def = definition("gray-scott");
    const GridSize grid{80, 60};
    std::unique_ptr<CpuSimulation> whole = def.createCpu(grid);
    std::unique_ptr<CpuSimulation> split = createSlabbedCpu(def, grid, 4, 4);
    whole->reset(5);
    split->reset(5);
    const ParamValues params = initialParams(def);
    // On a boundary (rows 15 | 16), across the wrap (row 0 | 59) and an erase inside a slab.
    const Brush strokes[] = {{40, 15.5f, 6, false}, {10, 59, 5, false}, {60, 38, 4, true}};
    for (const Brush& b : strokes) {
        whole->brush(b, params);
        split->brush(b, params);
        whole->step(params, 9);
        split->step(params, 9);
        EXPECT_EQ(differingLevels(outputs(*whole, def, grid), outputs(*split, def, grid)), 0u);
    }
}

TEST(SimSlabs, ThePlanSplitsAsEvenlyAsItCanAndRefusesSlabsThinnerThanTwoPlanes) {
    const SlabPlan plan = planSlabs(61, 7);
    ASSERT_EQ(plan.count.size(), 7u);
    uint32_t total = 0;
    for (size_t i = 0; i < plan.count.size(); ++i) {
        EXPECT_EQ(plan.first[i], total);
        EXPECT_TRUE(plan.count[i] == 8 || plan.count[i] == 9) << plan.count[i];
        total += plan.count[i];
    }
    EXPECT_EQ(total, 61u);
    EXPECT_EQ(plan.halo, kDefaultSlabHalo);
    EXPECT_EQ(planSlabs(12, 4).halo, 3u);                     // the thinnest slab bounds the halo
    EXPECT_EQ(slabLocalToWhole(plan, 0, 0), 61u - plan.halo); // slab 0's halo wraps
    EXPECT_EQ(slabLocalToWhole(plan, 1, plan.halo), plan.first[1]);
    for (uint32_t slabs : {0u, 31u, 100u}) {
        SCOPED_TRACE(slabs);
        try {
            (void)planSlabs(61, slabs);
            ADD_FAILURE() << "accepted";
        } catch (const Error& e) {
            EXPECT_EQ(exitCode(e), ExitCode::Usage);
            if (slabs > 0) {
                EXPECT_NE(std::string(e.what()).find("allowed: 1..30"), std::string::npos)
                    << e.what();
            }
        }
    }
}

TEST(SimSlabs, AWeightedPlanSplitsByShareAndRefusesSharesOfFewerThanTwoPlanes) {
    const SlabPlan plan = planSlabs(GridSize{16, 100}, {0.4, 0.3, 0.3});
    EXPECT_EQ(plan.first, (std::vector<uint32_t>{0, 40, 70}));
    EXPECT_EQ(plan.count, (std::vector<uint32_t>{40, 30, 30}));
    EXPECT_EQ(plan.halo, kDefaultSlabHalo);
    const SlabPlan odd = planSlabs(GridSize{8, 8, 61}, {1.0, 2.0});
    EXPECT_EQ(odd.count, (std::vector<uint32_t>{20, 41}));          // round(61 / 3), the rest
    EXPECT_EQ(planSlabs(GridSize{16, 100}, {0.03, 0.97}).halo, 3u); // the thinnest bounds it
    const std::pair<std::vector<double>, const char*> bad[] = {
        {{0.01, 0.99}, "slab 0's share of the grid's 100 rows is fewer than 2"},
        {{0.5, 0.0}, "must be positive, got 0"},
        {{1.0, -1.0}, "must be positive, got -1"},
    };
    for (const auto& [weights, message] : bad) {
        SCOPED_TRACE(message);
        try {
            (void)planSlabs(GridSize{16, 100}, weights);
            ADD_FAILURE() << "accepted";
        } catch (const Error& e) {
            EXPECT_EQ(exitCode(e), ExitCode::Usage);
            EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
        }
    }
}

TEST(SimSlabs, SimulationsThatDoNotSplitAreRefused) {
    for (const SimDefinition& def : estuary::simulations()) {
        if (def.splittable) continue;
        SCOPED_TRACE(def.name);
        GridSize grid{64, 64, def.dimensions == 3 ? 64u : 1u};
        EXPECT_THROW((void)createSlabbedCpu(def, grid, 2), Error);
    }
}

} // namespace
} // namespace estuary::sim
